package io.distlock.zookeeper.internal;

import java.security.SecureRandom;
import java.util.Comparator;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Names of queue nodes: {@code _c_<uuid>-lock-<sequence>}. The {@code _c_<uuid>-} part
 * ("protection", as Curator calls it) is unique to one acquisition attempt, so that the attempt
 * recognises its own node after a create whose reply was lost; ZooKeeper appends the sequence.
 */
final class QueueNodeNames {
    static final String NODE_PREFIX = "lock-";
    private static final String PROTECTION = "_c_";
    private static final int UUID_LENGTH = 36;
    // where the dashes of the UUID part are, counted from its start
    private static final long UUID_DASHES = (1L << 8) | (1L << 13) | (1L << 18) | (1L << 23);
    /** Length of {@code _c_<uuid>-}, the part unique to an attempt. */
    static final int PROTECTION_LENGTH = PROTECTION.length() + UUID_LENGTH + 1;

    /** Queue order: by the 10-digit sequence ZooKeeper appends (protection parts differ, sequences don't). */
    static final Comparator<String> BY_SEQUENCE = Comparator.comparing(QueueNodeNames::sequence);

    private final long protectionHigh;
    private final long protectionLow;
    private final AtomicLong protectionCounter = new AtomicLong();

    /** Names for one driver: 128 random bits drawn once, then a counter per attempt. */
    QueueNodeNames() {
        SecureRandom random = new SecureRandom();
        this.protectionHigh = random.nextLong();
        this.protectionLow = random.nextLong();
    }

    /**
     * A new attempt's node-name prefix, {@code _c_<id>-lock-}: unique within this driver by a
     * counter, across clients by the random bits. The id keeps the form of a UUID, which is what
     * other clients expect in a queue node's name.
     */
    String newPrefix() {
        return PROTECTION + new UUID(protectionHigh, protectionLow + protectionCounter.incrementAndGet()) + "-"
                + NODE_PREFIX;
    }

    /** The 10-digit sequence suffix ZooKeeper appends. */
    static String sequence(String child) {
        return child.length() >= 10 ? child.substring(child.length() - 10) : child;
    }

    /** The {@code _c_<uuid>-} part of a queue node's name, or {@code null} if it has none. */
    static String protectionOf(String child) {
        return child.startsWith(PROTECTION) && child.length() >= PROTECTION_LENGTH
                ? child.substring(0, PROTECTION_LENGTH)
                : null;
    }

    /**
     * Whether {@code child} is named as distlock names queue nodes: {@code _c_}, a UUID in its
     * lower-case text form, {@code -lock-}, then the sequence ZooKeeper appended ({@code -?} and 10
     * or 11 digits). Checked by hand rather than by a regular expression: it runs for every child of
     * every listing, on the acquisition's path.
     */
    static boolean isQueueNode(String child) {
        int uuidAt = PROTECTION.length();
        int lockAt = uuidAt + UUID_LENGTH + 1;
        int seqAt = lockAt + NODE_PREFIX.length();
        if (!child.startsWith(PROTECTION) || child.length() < seqAt + 10) {
            return false;
        }
        for (int i = 0; i < UUID_LENGTH; i++) {
            char c = child.charAt(uuidAt + i);
            boolean dash = (UUID_DASHES & (1L << i)) != 0;
            if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        if (child.charAt(lockAt - 1) != '-' || !child.startsWith(NODE_PREFIX, lockAt)) {
            return false;
        }
        int digitsAt = child.charAt(seqAt) == '-' ? seqAt + 1 : seqAt;
        int digits = child.length() - digitsAt;
        if (digits < 10 || digits > 11) {
            return false;
        }
        for (int i = digitsAt; i < child.length(); i++) {
            char c = child.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
