package io.distlock.etcd.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.HeldLock;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.TxnResponse;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A held lock: our key is the oldest under the lock's prefix. The key hangs on the session lease or
 * on a lease of its own (a lock lease), and the server deletes it when that lease ends: etcd keeps
 * each lock's time ({@code LeaseTiming.SERVER}).
 *
 * <p>An {@link #extend extension} and a {@link #releaseAfter delayed release} move the key to a new
 * lease of its own, with a TTL of the new time: one {@code LeaseGrant}, then one transaction that
 * puts the key on it only if its create revision is still ours ({@link Kv#moveKey}); a put keeps
 * the create revision, so the fencing token does not change. An extended lease is kept alive if
 * the lock renews, else revoked by the client when its time is up (and by the server's TTL if the
 * client is gone); a delayed release's lease is never kept alive and outlives the provider, so a
 * crashed or closed holder keeps the lock for the delay. Internal.
 */
final class EtcdHeld implements HeldLock {
    private final EtcdDriver driver;
    private final AcquireContext ctx;
    private final String lockName;
    /** Told when the lease the key hangs on dies (the attempt's contender). */
    private final Session.Listener owner;
    /** Ends the attempt's other bookkeeping (registration, own-key watch) when the hold ends. */
    private final Runnable detach;

    final ByteSequence key;
    final long revision;
    /** The lease the key's name was made with, which lends it its slot. */
    private final Session slotSession;

    private final long slot;
    private final AtomicBoolean slotFreed = new AtomicBoolean();
    /** The lease the key hangs on now. */
    private volatile Session lease;
    /** Whether {@link #lease} is the provider's session lease (shared with other keys). */
    private volatile boolean shared;

    volatile boolean released;

    EtcdHeld(
            EtcdDriver driver,
            AcquireContext ctx,
            Session.Listener owner,
            Runnable detach,
            ByteSequence key,
            long revision,
            Session lease,
            long slot,
            boolean shared) {
        this.driver = driver;
        this.ctx = ctx;
        this.lockName = ctx.lockName();
        this.owner = owner;
        this.detach = detach;
        this.key = key;
        this.revision = revision;
        this.slotSession = lease;
        this.slot = slot;
        this.lease = lease;
        this.shared = shared;
    }

    /** The lease the key hangs on now. */
    Session lease() {
        return lease;
    }

    @Override
    public OptionalLong fencingToken() {
        return OptionalLong.of(revision);
    }

    @Override
    public long validUntilNanos() {
        return lease.validUntil();
    }

    @Override
    public boolean release() {
        released = true;
        Session l = lease;
        l.unlisten(owner);
        detach.run();
        if (driver.closed() && !l.alive()) {
            return false;
        }
        if (!shared) {
            // revoking the key's own lease deletes the key (and nothing else): one round trip
            if (!l.alive()) {
                // our side ended the lease (its time ran out) and revoked it: free when that is answered
                l.awaitRevocation(driver.requestTimeoutNanos());
                return false;
            }
            boolean existed = driver.leases().revokeLockLease(l, lockName, "release");
            freeSlot();
            return existed;
        }
        boolean deleted = driver.deletes().delete(key, l, lockName, "release") > 0;
        freeSlot();
        return deleted;
    }

    /**
     * Moves the key to a new lease with TTL {@code leaseTime}, kept alive if the lock renews, else
     * revoked when that time is up.
     *
     * @throws BackendUnavailableException if the grant failed (nothing changed), or if the move's
     *     outcome is unknown: the key may then hang on either lease, so the lock is given up (the
     *     lease is reported lost, the key deleted, both leases revoked)
     */
    @Override
    public boolean extend(Duration leaseTime) {
        Session from = lease;
        boolean fromShared = shared;
        if (released || !from.alive()) {
            return false;
        }
        boolean renew = ctx.options().autoRenew();
        LeaseTerms terms =
                LeaseTerms.of(ctx.options().mutate().leaseTime(leaseTime).build(), renew);
        Session to = driver.leases().grant(terms, lockName);
        try {
            if (!move(to, "extension")) {
                return false;
            }
        } catch (BackendUnavailableException unknown) {
            ctx.reportLost("the outcome of an extension is unknown: the lock is given up", unknown);
            giveUp(from, to);
            throw unknown;
        }
        try {
            driver.leases().track(to, lockName);
            if (renew) {
                driver.leases().keepAliveEvery(to, lockName);
            } else {
                driver.leases().endWhenDue(to, this::freeSlot);
            }
        } finally {
            lease = to;
            shared = false;
            from.unlisten(owner);
            to.listen(owner);
            endOwn(from, fromShared, "its key moved to a new lease", false);
            if (released) {
                // released while moving: the release may have ended the old lease only
                driver.leases().revoke(to, "released", this::freeSlot);
            }
        }
        return true;
    }

    /**
     * Moves the key to a new lease with TTL {@code delay} that nobody keeps alive and that the
     * client revokes {@code delay} from now: the lock stays taken until then, also if this client
     * crashes or closes (the server's TTL, rounded up to whole seconds, ends it then).
     *
     * @throws BackendUnavailableException if the grant failed (the key is deleted {@code delay}
     *     from now, or goes with its lease), or the move's outcome is unknown (the key is deleted
     *     and both leases revoked {@code delay} from now); any other failure is cleaned up the same
     *     way
     */
    @Override
    public boolean releaseAfter(Duration delay) {
        released = true;
        Session from = lease;
        from.unlisten(owner);
        detach.run();
        if (!from.alive()) {
            return false;
        }
        Session to;
        try {
            to = driver.leases().grant(LeaseTerms.forDelay(delay), lockName);
        } catch (RuntimeException e) {
            after(delay, () -> giveUp(from, null));
            throw e;
        }
        boolean moved;
        try {
            moved = move(to, "delayed release");
        } catch (RuntimeException unknown) {
            after(delay, () -> giveUp(from, to));
            throw unknown;
        }
        endOwn(from, shared, moved ? "its key moved to a delayed release" : "its key is gone", !moved);
        if (!moved) {
            return false;
        }
        driver.leases().endWhenDue(to, this::freeSlot);
        return true;
    }

    /**
     * The owner-checked move of our key to lease {@code to}: true if moved; false if the key is no
     * longer ours ({@code to} is revoked then).
     *
     * @throws BackendUnavailableException if the outcome is unknown
     */
    private boolean move(Session to, String what) {
        TxnResponse r;
        try {
            r = driver.calls().await(driver.kv().moveKey(key, revision, to.leaseId), what, lockName);
        } catch (Rpc.LeaseGoneException e) {
            // a put naming a lease that is gone fails as a whole: nothing moved
            throw new BackendUnavailableException(what + ": the new lease was gone", lockName, EtcdDriver.BACKEND, e);
        }
        if (!r.isSucceeded()) {
            driver.leases().revoke(to, "its key was not ours any more", () -> {});
            return false;
        }
        return true;
    }

    /**
     * Ends {@code from} unless it is the shared session lease: the key no longer hangs on it ({@code
     * keyGone}: the key is gone altogether).
     */
    private void endOwn(Session from, boolean fromShared, String reason, boolean keyGone) {
        if (!fromShared) {
            driver.leases().revoke(from, reason, keyGone ? this::freeSlot : () -> {});
        } else if (keyGone) {
            freeSlot();
        }
    }

    /**
     * The key may hang on {@code from} or on {@code to} (a move whose outcome is unknown): give the
     * lock up — revoke both leases (if {@code from} is the key's own) or delete the key by name (it
     * is unique to this attempt), retried in the background while the session lives.
     */
    private void giveUp(Session from, Session to) {
        if (to != null) {
            driver.leases().revoke(to, "the lock was given up", () -> {});
        }
        if (shared) {
            try {
                driver.deletes().delete(key, from, lockName, "delete of a key given up");
            } catch (BackendUnavailableException retriedInTheBackground) {
                // the session goes on deleting it
            }
        } else {
            driver.leases().revoke(from, "the lock was given up", () -> {});
        }
    }

    /** Runs {@code task} on the session thread {@code delay} from now; dropped if the provider closes. */
    private void after(Duration delay, Runnable task) {
        try {
            driver.thread().schedule(task, delay.toNanos());
        } catch (RejectedExecutionException | ArithmeticException dropped) {
            // the provider is closing, or the delay is beyond any lifetime: the leases run out
        }
    }

    /** Gives our key's name back to its session, once: the key is known to be gone. */
    private void freeSlot() {
        if (slot != 0 && slotFreed.compareAndSet(false, true)) {
            slotSession.freeSlot(slot);
        }
    }

    @Override
    public String toString() {
        return "EtcdHeld{lock='" + lockName + "', revision=" + revision + ", lease=" + lease.leaseHex + '}';
    }
}
