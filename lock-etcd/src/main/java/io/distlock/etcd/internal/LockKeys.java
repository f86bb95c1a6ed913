package io.distlock.etcd.internal;

import com.google.protobuf.ByteString;
import io.distlock.LockConfigurationException;
import io.distlock.LockNames;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.options.OptionsUtil;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * The keys of one lock: every contender's key lives under {@code <keyPrefix><encoded name>/} and is
 * named {@code <lease hex>-<slot hex>} (see {@link Session#takeSlot()}). Internal.
 */
final class LockKeys {
    private static final Pattern OUR_KEY = Pattern.compile("[0-9a-f]{1,16}-[0-9a-f]{1,16}");

    final String lockName;
    /** {@code <keyPrefix><encoded name>/}. */
    final String prefixString;

    final ByteSequence prefix;
    /** The end of the prefix's range (exclusive), for range requests. */
    final ByteSequence prefixEnd;
    /** {@link #prefix} and {@link #prefixEnd} as protobuf bytes, for the direct requests. */
    final ByteString rawPrefix;

    final ByteString rawPrefixEnd;

    LockKeys(String keyPrefix, String lockName) {
        this.lockName = lockName;
        this.prefixString = keyPrefix + LockNames.encode(lockName) + "/";
        this.prefix = bytes(prefixString);
        this.prefixEnd = OptionsUtil.prefixEndOf(prefix);
        this.rawPrefix = ByteString.copyFrom(prefix.getBytes());
        this.rawPrefixEnd = ByteString.copyFrom(prefixEnd.getBytes());
    }

    /** The key of an attempt that holds {@code slot} of session {@code s}. */
    ByteSequence key(Session s, long slot) {
        return bytes(prefixString + s.leaseHex + "-" + Long.toHexString(slot));
    }

    static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    /**
     * The oldest key under the lock's prefix decides who holds the lock. A key there that no
     * distlock client made ({@code <lease hex>-<slot hex>}) was written by someone else (another
     * application sharing the key prefix, or a hand edit): it would block the lock forever, or, if
     * it stood for a holder of some other protocol, make two holders. Fail clearly instead.
     *
     * @throws LockConfigurationException if {@code key} is not one of ours
     */
    void checkNotForeign(ByteSequence key) {
        String k = key.toString(StandardCharsets.UTF_8);
        if (!k.startsWith(prefixString)
                || !OUR_KEY.matcher(k.substring(prefixString.length())).matches()) {
            // the engine abandons the contender, which deletes our own key
            throw new LockConfigurationException(
                    "a key under the lock's prefix was not written by distlock: '" + printable(k)
                            + "' blocks the lock; is the key prefix shared with another application? Delete the"
                            + " key, or give distlock its own keyPrefix (lock '" + lockName + "')",
                    EtcdDriver.BACKEND);
        }
    }

    private static String printable(String s) {
        StringBuilder sb = new StringBuilder();
        s.codePoints().limit(200).forEach(cp -> {
            if (cp < 0x20 || cp == 0x7F) {
                sb.append(String.format("\\u%04x", cp));
            } else {
                sb.appendCodePoint(cp);
            }
        });
        return sb.toString();
    }
}
