package io.distlock.etcd.internal;

import java.util.BitSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;

/**
 * One etcd lease: the provider's session lease shared by every key of a provider, kept alive by
 * the driver's keepalive thread, or (with {@code perLockLease}) one acquisition's own lease, kept
 * alive the same way. Internal.
 */
final class Session {

    /** Told once when the session's lease is gone (revoked, expired, keepalive failed, provider closed). */
    interface Listener {
        void sessionDied(String reason);
    }

    final long leaseId;
    final String leaseHex;
    private final Set<Listener> listeners = ConcurrentHashMap.newKeySet();
    private volatile long validUntil;
    private volatile String deathReason;
    volatile ScheduledFuture<?> keepalive;
    volatile boolean keepaliveInFlight;
    /** Key slots in use by attempts on this lease; see {@link #takeSlot()}. */
    private final BitSet slots = new BitSet(); // guarded by itself

    Session(long leaseId, long validUntil) {
        this.leaseId = leaseId;
        this.leaseHex = Long.toHexString(leaseId);
        this.validUntil = validUntil;
    }

    /**
     * The lowest key slot no attempt on this lease uses: an attempt's key is {@code <lease
     * hex>-<slot hex>}, so a lock acquired and released over and over by one thread reuses one
     * key name instead of leaving a new deleted key behind each time. (etcd keeps a deleted key in
     * its index until the next compaction, and every range read of the lock's prefix, which each
     * acquisition makes, walks all of them: with a new name per attempt an uncontended
     * acquisition got slower with every one before it.)
     */
    long takeSlot() {
        synchronized (slots) {
            int i = slots.nextClearBit(1);
            slots.set(i);
            return i;
        }
    }

    /**
     * Returns a slot once its key is known to be gone from the server (our delete was answered),
     * never earlier: a later attempt with the same slot must not find (and adopt) the key of an
     * earlier one.
     */
    void freeSlot(long slot) {
        synchronized (slots) {
            slots.clear((int) slot);
        }
    }

    long validUntil() {
        return validUntil;
    }

    /** Moves the deadline forward (never back). */
    synchronized void extend(long newValidUntil) {
        if (newValidUntil - validUntil > 0) {
            validUntil = newValidUntil;
        }
    }

    boolean alive() {
        return deathReason == null;
    }

    String deathReason() {
        return deathReason;
    }

    /** Adds a listener; if the session is already dead, tells it at once. */
    void listen(Listener l) {
        listeners.add(l);
        String r = deathReason;
        if (r != null && listeners.remove(l)) {
            l.sessionDied(r);
        }
    }

    void unlisten(Listener l) {
        listeners.remove(l);
    }

    /** Marks the session dead; returns whether this call did it. Listeners are told outside any lock. */
    boolean die(String reason) {
        synchronized (this) {
            if (deathReason != null) {
                return false;
            }
            deathReason = reason;
        }
        ScheduledFuture<?> k = keepalive;
        if (k != null) {
            k.cancel(false);
        }

        for (Listener l : listeners) {
            if (listeners.remove(l)) {
                l.sessionDied(reason);
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return "Session{lease=" + leaseHex + (deathReason == null ? "" : ", dead: " + deathReason) + '}';
    }
}
