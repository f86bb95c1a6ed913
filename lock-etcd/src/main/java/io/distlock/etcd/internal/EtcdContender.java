package io.distlock.etcd.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.Deadlines;
import io.distlock.spi.HeldLock;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import java.util.List;
import java.util.Optional;

/**
 * One acquisition attempt: owns one key under the lock's prefix, attached to the session lease, or
 * to a lease of its own (with {@code perLockLease}, or for a lock handle whose lease time or renewal
 * differs from the session's: the server then enforces that lock's time), and keeps it until it
 * holds the lock ({@link EtcdHeld}) or gives up; the
 * key's create revision is its place in the queue ({@link QueuePlace}) and, once held, the fencing
 * token. The oldest key under the prefix holds the lock.
 *
 * <p>A try is one transaction ({@link Kv#createOrRead}): create our key if absent and read the
 * oldest key (and the two newest) in one snapshot. Ours is the oldest: we hold the lock. Otherwise
 * the same snapshot names our predecessor, and the attempt waits for its delete ({@link
 * PredecessorWait}). After that delete, if the predecessor was the only key older than ours, ours
 * is the oldest and we hold the lock without a request (the ZooKeeper lock recipe's argument: a key
 * created later always has a higher create revision, a deleted key never comes back with its old
 * one, and a lease that expired deletes its keys like a release, so no key older than ours can
 * appear); otherwise one read lists the keys older than ours. Internal.
 */
final class EtcdContender implements Contender, Session.Listener {
    private static final int MAX_TRIES_PER_CALL = 5;
    private static final long RETRY_PAUSE_MILLIS = 100;

    private final EtcdDriver driver;
    private final AcquireContext ctx;
    private final String lockName;
    private final LockKeys keys;
    private final QueuePlace place = new QueuePlace();
    private final PredecessorWait wait;
    private final OwnKeyWatch ownKeyWatch;
    /** Whether our key hangs on a lease of its own rather than the session's. */
    private final boolean ownLease;

    private Session session;
    /** Our key's slot in {@link #session} (0: none); given back once the key is known deleted. */
    private long ourSlot;

    private volatile String sessionDeath;
    private volatile EtcdHeld held;
    private boolean waiting;
    private boolean failedWhileWaiting;

    EtcdContender(EtcdDriver driver, AcquireContext ctx, LockKeys keys) {
        this.driver = driver;
        this.ctx = ctx;
        this.lockName = ctx.lockName();
        this.keys = keys;
        this.wait = new PredecessorWait(driver, keys, place);
        this.ownKeyWatch = new OwnKeyWatch(driver, place::key, this::ownKeyGone);
        this.ownLease = driver.perLockLease() || !driver.leases().sessionFits(ctx.options());
    }

    @Override
    public Optional<HeldLock> tryAcquire() {
        try {
            Optional<HeldLock> h = tryOnce();
            failedWhileWaiting = false;
            return h;
        } catch (BackendUnavailableException e) {
            if (driver.closed()) {
                IllegalStateException closed = new IllegalStateException(
                        "provider was closed during the attempt (lock '" + lockName + "', backend etcd)");
                closed.addSuppressed(e);
                throw closed;
            }
            Session s = session;
            // A waiter rides out a short outage (a leader election, its member dying) while its
            // session is still valid: it keeps its place and tries again after a pause. A first try,
            // or a waiter whose session has run out, fails.
            if (waiting && s != null && s.alive() && !Deadlines.passed(driver.ticker(), s.validUntil())) {
                failedWhileWaiting = true;
                return Optional.empty();
            }
            throw e;
        }
    }

    private Optional<HeldLock> tryOnce() {
        if (wait.takePredecessorGone(place.predecessor())) {
            Optional<Optional<HeldLock>> after = afterPredecessorGone();
            if (after.isPresent()) {
                return after.get();
            }
        }
        for (int i = 0; i < MAX_TRIES_PER_CALL; i++) {
            Session s = ownLease ? lockLease() : driver.leases().session(lockName);
            if (session != s) {
                if (session != null) {
                    // the old session died while we waited: our old key went (or goes) with it
                    dropKey(false);
                }
                session = s;
                place.keyPresent();
                sessionDeath = null;
                ourSlot = s.takeSlot();
                place.setOurs(keys.key(s, ourSlot), 0);
                driver.register(this);
                s.listen(this);
            }
            ByteSequence ourKey = place.key();
            long sent = driver.ticker().read();
            ctx.acquiringRequestSent(sent);
            TxnResponse r;
            try {
                r = driver.calls()
                        .await(driver.kv().createOrRead(keys, ourKey, s.leaseId), "acquire transaction", lockName);
            } catch (Rpc.LeaseGoneException e) {
                driver.leases().kill(s, "lease not found on the server", false);
                continue;
            }
            long header = r.getHeader().getRevision();
            List<GetResponse> gets = r.getGetResponses();
            boolean created = r.isSucceeded();
            if (created) {
                place.setOurs(ourKey, header);
                place.keyPresent();
                ownKeyWatch.stop(false); // a watch of an earlier incarnation of the key would report its delete
            } else {
                place.setOurs(ourKey, gets.get(0).getKvs().get(0).getCreateRevision());
            }
            ownKeyWatch.startLater(ourKey, header + 1);
            GetResponse owner = created ? gets.get(0) : gets.get(1);
            if (owner.getKvs().isEmpty()) {
                continue; // cannot happen (our key is there); read again
            }
            ByteSequence oldest = owner.getKvs().get(0).getKey();
            if (oldest.equals(ourKey)) {
                return Optional.of(hold(s, sent)); // our own key: no need to check its form
            }
            keys.checkNotForeign(oldest);
            if (created) {
                List<KeyValue> newest = gets.get(1).getKvs();
                if (newest.size() == 2 && newest.get(0).getKey().equals(ourKey)) {
                    ByteSequence pred = newest.get(1).getKey();
                    keys.checkNotForeign(pred);
                    // the oldest key and the one created last before ours, in one snapshot
                    place.setPredecessor(pred, newest.get(1).getCreateRevision(), pred.equals(oldest), header);
                    return Optional.empty();
                }
            }
            Optional<HeldLock> listed = list(s, false, sent);
            if (listed != null) {
                return listed;
            }
            // our key went away between the two requests: make it again
        }
        return Optional.empty();
    }

    /**
     * After the wait's watch saw our predecessor deleted: if it was the only key older than ours,
     * ours is now the oldest and we hold the lock without asking the server. Otherwise one read
     * (never a write) lists the keys older than ours. Empty when the attempt must go the long way
     * (our key or session may be gone).
     */
    private Optional<Optional<HeldLock>> afterPredecessorGone() {
        Session s = session;
        if (s == null
                || place.key() == null
                || place.revision() <= 0
                || place.keyDeleted()
                || sessionDeath != null
                || driver.closed()
                || !s.alive()
                || Deadlines.passed(driver.ticker(), s.validUntil())) {
            return Optional.empty();
        }
        if (place.predecessorWasOldest()) {
            return Optional.of(Optional.of(hold(s, 0 /* waited */)));
        }
        // In a queue the predecessor was usually the holder, so ours is now the oldest: a
        // serializable read (no consensus round) that shows our key alone proves it. A read from a
        // member that lags can only show more older keys, never fewer: it shows our key, so it is
        // at a revision after our key's creation, and no key older than ours can appear after that.
        // Anything else (older keys, our key missing) is asked again with a linearizable read.
        Optional<HeldLock> quick = list(s, true, 0 /* waited */);
        if (quick != null && quick.isPresent()) {
            return Optional.of(quick);
        }
        return Optional.ofNullable(list(s, false, 0 /* waited */));
    }

    /**
     * One range read ({@link Kv#keysUpTo}): our key and the two keys created last before it. Our
     * key alone: we hold the lock. Otherwise the first older key is our predecessor, and it is the
     * oldest key if there is no second one. Null if our key is gone (deleted by someone else, or
     * re-made with a later revision): the caller makes it again with its transaction. {@code
     * triedAt}: as for {@link #hold}.
     */
    private Optional<HeldLock> list(Session s, boolean serializable, long triedAt) {
        GetResponse r = driver.calls()
                .await(driver.kv().keysUpTo(keys, place.revision(), serializable), "predecessor read", lockName);
        List<KeyValue> kvs = r.getKvs();
        if (!place.listsOursFirst(kvs)) {
            if (!serializable) {
                place.keyGone();
            }
            return null; // serializable: perhaps a lagging member; the caller asks again, linearizably
        }
        if (kvs.size() == 1) {
            return Optional.of(hold(s, triedAt));
        }
        if (serializable) {
            return Optional.empty(); // the caller asks again, linearizably
        }
        for (int i = 1; i < kvs.size(); i++) {
            keys.checkNotForeign(kvs.get(i).getKey());
        }
        place.setPredecessor(
                kvs.get(1).getKey(),
                kvs.get(1).getCreateRevision(),
                kvs.size() == 2,
                r.getHeader().getRevision());
        return Optional.empty();
    }

    /**
     * Our key holds the lock. {@code triedAt}: when the transaction of the try was sent; for an
     * attempt that did not wait, a lock lease's time counts from then ({@link Session#countFrom}).
     * After a wait it is ignored (the waiting key's lease was kept alive; one more keepalive follows).
     */
    private EtcdHeld hold(Session s, long triedAt) {
        EtcdHeld h = new EtcdHeld(
                driver,
                ctx,
                this,
                () -> {
                    driver.unregister(this);
                    ownKeyWatch.stop(true);
                },
                place.key(),
                place.revision(),
                s,
                ourSlot,
                !ownLease);
        held = h;
        if (!s.alive()) {
            ctx.reportLost("session lease lost: " + s.deathReason(), null);
            return h;
        }
        if (ownLease && !waiting) {
            s.countFrom(triedAt);
        }
        if (ownLease && !ctx.options().autoRenew()) {
            // the lock's own time, kept by the server: no keepalive from now on (one more if the
            // key waited, so that the lease time counts from about now)
            driver.leases().stopRenewing(s, waiting);
        }
        if (waiting) {
            // on the session thread: the acquiring thread returns at once (building and sending
            // the request on it would cost time on the hand-off path)
            driver.thread().execute(() -> {
                if (!h.released && s.alive()) { // released already: the mark would only fail its compare
                    HolderMark.write(driver, h.key, h.revision, s.leaseId, lockName);
                }
            });
        }
        return h;
    }

    /**
     * This attempt's own lease while it lives, else a new one (one round trip) of the handle's lease
     * time, kept alive while the key waits.
     */
    private Session lockLease() {
        Session s = session;
        if (s != null && s.alive() && !Deadlines.passed(driver.ticker(), s.validUntil())) {
            return s;
        }
        return driver.leases().grantLockLease(LeaseTerms.of(ctx.options(), true), lockName);
    }

    /** Our key {@code key} was deleted on the server: a loss for a holder, a wake-up for a waiter. */
    private void ownKeyGone(ByteSequence key) {
        if (!key.equals(place.key())) {
            return;
        }
        EtcdHeld h = held;
        if (h != null) {
            if (!h.released) {
                ctx.reportLost(
                        "our key was deleted on the server (lease revoked or expired, or deleted by another"
                                + " client)",
                        null);
            }
        } else {
            place.keyGone();
            wake();
        }
    }

    @Override
    public void sessionDied(String reason) {
        sessionDeath = reason;
        EtcdHeld h = held;
        if (h != null && !h.released) {
            ctx.reportLost("session lease lost: " + reason, null);
        }
        wake();
    }

    void wake() {
        wait.wake();
    }

    @Override
    public void awaitChange(long deadlineNanos) throws InterruptedException {
        waiting = true;
        if (failedWhileWaiting) {
            wait.pause(RETRY_PAUSE_MILLIS, deadlineNanos);
            return;
        }
        wait.awaitPredecessor(session, deadlineNanos);
    }

    @Override
    public void abandon() {
        dropKey(true);
    }

    /** Stops watching and deletes our key (bounded); the key may already be gone. */
    private void dropKey(boolean forGood) {
        Session s = session;
        if (s != null) {
            s.unlisten(this);
        }
        driver.unregister(this);
        ownKeyWatch.stop(forGood);
        ByteSequence key = place.key();
        if (key == null) {
            return;
        }
        place.setOurs(null, 0);
        long slot = ourSlot;
        ourSlot = 0;
        if (driver.closed() && s != null && !s.alive()) {
            return; // the provider revoked (or crashed with) the lease
        }
        if (ownLease && s != null) {
            if (s.alive() && !driver.closed()) { // a closing provider revokes every lock lease itself
                driver.leases().revokeLockLease(s, lockName, "revoke of our lock lease");
            }
            return; // a dead lock lease took our key with it
        }
        try {
            driver.deletes().delete(key, s, lockName, "delete of our key");
            if (s != null && slot != 0) {
                s.freeSlot(slot); // the key is gone: a later attempt may use its name
            }
        } catch (BackendUnavailableException e) {
            if (s == null || s.alive()) {
                throw e;
            }
            // the session is dead: the key goes with its lease
        }
    }
}
