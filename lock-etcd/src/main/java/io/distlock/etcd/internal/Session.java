package io.distlock.etcd.internal;

import io.distlock.spi.Deadlines;
import java.util.BitSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One etcd lease: the provider's session lease shared by every key of a provider, kept alive by
 * the driver's keepalive thread, or a lease of one key alone (a <em>lock lease</em>: with {@code
 * perLockLease}, for a lock handle whose lease time or renewal differs from the session's, and the
 * lease a held key is moved to by an extension or a delayed release), kept alive the same way or
 * left to run out, as its {@link LeaseTerms terms} say. Internal.
 */
final class Session {

    /** Told once when the session's lease is gone (revoked, expired, keepalive failed, provider closed). */
    interface Listener {
        void sessionDied(String reason);
    }

    final long leaseId;
    final String leaseHex;
    final LeaseTerms terms;
    private final Set<Listener> listeners = ConcurrentHashMap.newKeySet();
    private volatile long validUntil;
    /** When the request that last started the lease's TTL on the server (grant or keepalive) was sent. */
    private long ttlFrom; // guarded by this

    private volatile String deathReason;
    volatile ScheduledFuture<?> keepalive;
    volatile boolean keepaliveInFlight;
    /**
     * Completed once the revoke this client sent when the lease died was answered (or failed);
     * {@code null} if the lease died without one. Set before the listeners are told.
     */
    private volatile CompletableFuture<Void> revocation;
    /** Key slots in use by attempts on this lease; see {@link #takeSlot()}. */
    private final BitSet slots = new BitSet(); // guarded by itself

    /** @param sentAt when the grant was sent: the lease is valid until {@code terms.validUntil(sentAt)} */
    Session(long leaseId, LeaseTerms terms, long sentAt) {
        this.leaseId = leaseId;
        this.leaseHex = Long.toHexString(leaseId);
        this.terms = terms;
        this.validUntil = terms.validUntil(sentAt);
        this.ttlFrom = sentAt;
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

    /**
     * A keepalive sent at {@code sentAt} was answered with the lease alive: its TTL started again
     * then, and the deadline moves to {@code terms.validUntil(sentAt)} (never back).
     */
    synchronized void renewed(long sentAt) {
        if (sentAt - ttlFrom > 0) {
            ttlFrom = sentAt;
        }
        extend(terms.validUntil(sentAt));
    }

    /**
     * The key on this lease became a lock holder by a request sent at {@code acquiredAt}: the lock's
     * time counts from then rather than from the grant, as far as the server's TTL (from the last
     * grant or keepalive, less its margin) allows. A lock lease whose lease time is shorter than
     * its whole-second TTL so keeps its whole lease time after the grant's round trip; the client
     * revokes it at this deadline.
     */
    synchronized void countFrom(long acquiredAt) {
        long byTtl = Deadlines.after(ttlFrom, terms.ttlValidityNanos());
        long byLeaseTime = terms.validUntil(acquiredAt);
        extend(byTtl - byLeaseTime < 0 ? byTtl : byLeaseTime);
    }

    /** Moves the deadline forward (never back). */
    private synchronized void extend(long newValidUntil) {
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

    /** Stops keeping the lease alive: it runs out at its validity deadline unless it is ended first. */
    void stopKeepalive() {
        ScheduledFuture<?> k = keepalive;
        if (k != null) {
            k.cancel(false);
        }
    }

    /** Marks the session dead; returns whether this call did it. Listeners are told outside any lock. */
    boolean die(String reason) {
        return die(reason, null);
    }

    /**
     * Marks the session dead, as {@link #die(String)}, with {@code revocation} as the revoke this
     * client is about to send (completed by the caller once it is answered or has failed), which
     * {@link #awaitRevocation} waits for.
     */
    boolean die(String reason, CompletableFuture<Void> revocation) {
        synchronized (this) {
            if (deathReason != null) {
                return false;
            }
            this.revocation = revocation;
            deathReason = reason;
        }
        stopKeepalive();

        for (Listener l : listeners) {
            if (listeners.remove(l)) {
                l.sessionDied(reason);
            }
        }
        return true;
    }

    /**
     * Waits at most {@code nanos} for the revoke this client sent when the lease died, if it sent
     * one: once that is answered, the lease's keys are gone from the server. Returns at once for a
     * live lease or one that died without a revoke of ours; keeps the interrupt flag.
     */
    void awaitRevocation(long nanos) {
        CompletableFuture<Void> r = revocation;
        if (r == null) {
            return;
        }
        try {
            r.get(nanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // not answered in time: the lease (and its keys) ends with its TTL on the server
        }
    }

    @Override
    public String toString() {
        return "Session{lease=" + leaseHex + (deathReason == null ? "" : ", dead: " + deathReason) + '}';
    }
}
