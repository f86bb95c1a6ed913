package io.distlock.etcd.internal;

import com.google.protobuf.ByteString;
import io.distlock.BackendUnavailableException;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.Deadlines;
import io.distlock.spi.HeldLock;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.api.Compare;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.RequestOp;
import io.etcd.jetcd.api.TxnRequest;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One acquisition attempt: owns one key under the lock's prefix, attached to the session lease,
 * and keeps it (its create revision is its place in the queue) until it holds the lock or gives
 * up. Internal.
 */
final class EtcdContender implements Contender, Session.Listener {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(EtcdContender.class);
    private static final ByteSequence EMPTY = ByteSequence.EMPTY;
    private static final GetOption OWNER = GetOption.builder()
            .isPrefix(true)
            .withSortField(GetOption.SortTarget.CREATE)
            .withSortOrder(GetOption.SortOrder.ASCEND)
            .withLimit(1)
            .withKeysOnly(true)
            .build();
    private static final GetOption NEWEST_TWO = GetOption.builder()
            .isPrefix(true)
            .withSortField(GetOption.SortTarget.CREATE)
            .withSortOrder(GetOption.SortOrder.DESCEND)
            .withLimit(2)
            .withKeysOnly(true)
            .build();
    private static final int MAX_TRIES_PER_CALL = 5;
    private static final java.util.regex.Pattern OUR_KEY =
            java.util.regex.Pattern.compile("[0-9a-f]{1,16}-[0-9a-f]{1,16}");
    private static final long RETRY_PAUSE_MILLIS = 100;
    private static final long OWN_KEY_WATCH_DELAY_MILLIS = 100;

    /**
     * The value a holder that had to wait writes on its own key once it holds the lock (our keys
     * are created with an empty value): "this key was the oldest under the lock's prefix". See
     * {@link #markHolder} for who writes it and {@link #watchPredecessor} for what a waiter
     * concludes from it.
     */
    static final ByteString HOLDER_MARK = ByteString.copyFromUtf8("holder");

    /** The create revision of {@code prev} (a deleted key's last version) if it carries the holder mark, else 0. */
    static long markedHolderRevision(io.etcd.jetcd.api.KeyValue prev) {
        return HOLDER_MARK.equals(prev.getValue()) ? prev.getCreateRevision() : 0;
    }

    /** The same for a previous value and create revision reported by a jetcd watcher. */
    static long markedHolderRevision(byte[] value, long createRevision) {
        return HOLDER_MARK.equals(ByteString.copyFrom(value)) ? createRevision : 0;
    }

    private final EtcdDriver driver;
    private final AcquireContext ctx;
    private final String lockName;
    private final String lockPrefixString;
    private final ByteSequence lockPrefix;
    private final ReentrantLock mutex = new ReentrantLock();
    private final Condition changed = mutex.newCondition();
    private long changes;

    private Session session;
    /** Our key's slot in {@link #session} (0: none); given back once the key is known deleted. */
    private long ourSlot;

    private volatile ByteSequence ourKey;
    private volatile long ourRevision;
    private volatile ByteSequence predecessor;
    /** A revision at which {@link #predecessor} existed (that of the read that named it). */
    private volatile long predecessorListedAt;
    /** The create revision of {@link #predecessor} as listed (to match a delete's holder mark). */
    private volatile long predecessorRevision;
    /**
     * A predecessor that was, at some moment while it existed, the only key under the prefix older
     * than ours (at {@link #ourRevision}): its delete then leaves ours the oldest. Set by the listing
     * that named it or by the read that confirms a wait's watch; keys are never re-made with an
     * older revision, so the fact stays true for as long as our key keeps its revision.
     */
    private volatile ByteSequence oldestPredecessor;
    /** The predecessor the current wait's watch saw deleted (or found gone), or null. */
    private ByteSequence goneKey; // guarded by mutex
    /** Which wait the watch callbacks belong to: a late answer to an earlier wait's watch is ignored. */
    private long waitGeneration; // guarded by mutex

    private final Object ownWatchLock = new Object();
    private EtcdDriver.Delayed ownWatchTask; // guarded by ownWatchLock
    private boolean ownWatchStopped; // guarded by ownWatchLock
    private volatile WatchStream.Handle ownWatch;
    private volatile boolean ownKeyDeleted;
    private volatile String sessionDeath;
    private volatile Held held;
    private boolean waiting;
    private boolean failedWhileWaiting;

    /** The lock's prefix and its range end, for the direct (protobuf) requests. */
    private final ByteString rawPrefix;

    private final ByteString rawPrefixEnd;

    EtcdContender(EtcdDriver driver, AcquireContext ctx) {
        this.driver = driver;
        this.ctx = ctx;
        this.lockName = ctx.lockName();
        this.lockPrefixString = driver.lockPrefix(lockName);
        this.lockPrefix = EtcdDriver.bytes(lockPrefixString);
        this.rawPrefix = ByteString.copyFrom(lockPrefix.getBytes());
        this.rawPrefixEnd = ByteString.copyFrom(
                io.etcd.jetcd.options.OptionsUtil.prefixEndOf(lockPrefix).getBytes());
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
        if (takePredecessorGone()) {
            Optional<Optional<HeldLock>> after = afterPredecessorGone();
            if (after.isPresent()) {
                return after.get();
            }
        }
        for (int i = 0; i < MAX_TRIES_PER_CALL; i++) {
            Session s = driver.perLockLease() ? lockLease() : driver.session(lockName);
            if (session != s) {
                if (session != null) {
                    // the old session died while we waited: our old key went (or goes) with it
                    dropKey(false);
                }
                session = s;
                ownKeyDeleted = false;
                sessionDeath = null;
                ourSlot = s.takeSlot();
                setOurs(EtcdDriver.bytes(driver.key(lockPrefixString, s, ourSlot)), 0);
                driver.register(this);
                s.listen(this);
            }
            TxnResponse r;
            try {
                r = driver.await(transaction(s), "acquire transaction", lockName);
            } catch (Rpc.LeaseGoneException e) {
                driver.kill(s, "lease not found on the server", false);
                continue;
            }
            long header = r.getHeader().getRevision();
            List<GetResponse> gets = r.getGetResponses();
            boolean created = r.isSucceeded();
            if (created) {
                setOurs(ourKey, header);
                ownKeyDeleted = false;
                stopOwnWatch(false); // a watch of an earlier incarnation of the key would report its delete
                watchOwnKeyLater(header + 1);
            } else {
                List<KeyValue> mine = gets.get(0).getKvs();
                setOurs(ourKey, mine.get(0).getCreateRevision());
                if (ownWatch == null) {
                    watchOwnKeyLater(header + 1);
                }
            }
            GetResponse owner = created ? gets.get(0) : gets.get(1);
            if (owner.getKvs().isEmpty()) {
                continue; // cannot happen (our key is there); read again
            }
            ByteSequence oldest = owner.getKvs().get(0).getKey();
            if (oldest.equals(ourKey)) {
                return Optional.of(hold(s)); // our own key: no need to check its form
            }
            checkNotForeign(oldest);
            if (created) {
                List<KeyValue> newest = gets.get(1).getKvs();
                if (newest.size() == 2 && newest.get(0).getKey().equals(ourKey)) {
                    ByteSequence pred = newest.get(1).getKey();
                    checkNotForeign(pred);
                    // the oldest key and the one created last before ours, in one snapshot
                    setPredecessor(
                            pred,
                            newest.get(1).getCreateRevision(),
                            pred.equals(owner.getKvs().get(0).getKey()),
                            header);
                    return Optional.empty();
                }
            }
            Optional<HeldLock> listed = list(s, false);
            if (listed != null) {
                return listed;
            }
            // our key went away between the two requests: make it again
        }
        return Optional.empty();
    }

    /** Our key and its create revision; what we knew about the keys older than it goes if they change. */
    private void setOurs(ByteSequence key, long revision) {
        mutex.lock();
        try {
            if (!java.util.Objects.equals(key, ourKey) || revision != ourRevision) {
                oldestPredecessor = null;
            }
            ourKey = key;
            ourRevision = revision;
        } finally {
            mutex.unlock();
        }
    }

    private void setPredecessor(ByteSequence pred, long predRevision, boolean oldest, long listedAt) {
        predecessorListedAt = listedAt;
        predecessorRevision = predRevision;
        predecessor = pred;
        if (oldest) {
            oldestPredecessor = pred;
        }
    }

    /** Whether the last wait ended because our current predecessor is gone (and forgets it). */
    private boolean takePredecessorGone() {
        mutex.lock();
        try {
            boolean gone = goneKey != null && goneKey.equals(predecessor);
            goneKey = null;
            return gone;
        } finally {
            mutex.unlock();
        }
    }

    /**
     * After the wait's watch saw our predecessor deleted: if it was the only key older than ours,
     * ours is now the oldest and we hold the lock without asking the server (the ZooKeeper lock
     * recipe's argument: a key created later always has a higher create revision, a deleted key
     * never comes back with its old one, and a lease that expired deletes its keys like a release,
     * so no key older than ours can appear). Otherwise one read (never a write) lists the keys older
     * than ours. Empty when the attempt must go the long way (our key or session may be gone).
     */
    private Optional<Optional<HeldLock>> afterPredecessorGone() {
        Session s = session;
        if (s == null
                || ourKey == null
                || ourRevision <= 0
                || ownKeyDeleted
                || sessionDeath != null
                || driver.closed()
                || !s.alive()
                || Deadlines.passed(driver.ticker(), s.validUntil())) {
            return Optional.empty();
        }
        if (predecessor != null && predecessor.equals(oldestPredecessor)) {
            return Optional.of(Optional.of(hold(s)));
        }
        // In a queue the predecessor was usually the holder, so ours is now the oldest: a
        // serializable read (no consensus round) that shows our key alone proves it. A read from a
        // member that lags can only show more older keys, never fewer: it shows our key, so it is
        // at a revision after our key's creation, and no key older than ours can appear after that.
        // Anything else (older keys, our key missing) is asked again with a linearizable read.
        Optional<HeldLock> quick = list(s, true);
        if (quick != null && quick.isPresent()) {
            return Optional.of(quick);
        }
        return Optional.ofNullable(list(s, false));
    }

    private Held hold(Session s) {
        Held h = new Held(s, ourKey, ourSlot, ourRevision);
        held = h;
        if (!s.alive()) {
            ctx.reportLost("session lease lost: " + s.deathReason(), null);
        } else if (waiting) {
            // on the session thread: the acquiring thread returns at once (building and sending
            // the request on it cost ≈ 0.1 ms on the hand-off path)
            driver.runOnSessionThread(() -> markHolder(s, h));
        }
        return h;
    }

    /**
     * Writes the holder mark on our key, now that it is proven the oldest under the lock's prefix:
     * one transaction {@code If(createRevision(ourKey) == ourRevision) Then(put(ourKey, "holder",
     * ignoreLease))}, sent from the session thread without waiting for its answer (off the hand-off
     * path; the release does not wait for it either, and a holder released before the mark is sent
     * sends none). Only a holder that had to wait marks its key: the waiter behind a
     * holder that got the lock at once listed that holder as the oldest key and needs no mark.
     *
     * <p>What the mark tells the waiter behind us: when our key is deleted (released, or gone with
     * its lease), the waiter's watch reports the delete with the key's previous value; if that is
     * the mark and the key's create revision is the one the waiter listed, our key was at some
     * moment the oldest — and so the only key older than the waiter's — and the waiter holds the
     * lock without reading (see {@link #watchPredecessor}). Why the mark never lies: it is written
     * only here, after our key was proven the oldest (a key older than ours can never appear later:
     * create revisions only grow); the compare on the create revision keeps it off any other key of
     * the same name (a later attempt of this session that reuses the name has a larger create
     * revision), also if it reaches the server late, after our release or after our lease ended (then
     * the key is gone and the compare fails: nothing is written). A key deleted before its mark was
     * applied is simply reported without it: the waiter reads, as before.
     */
    private void markHolder(Session s, Held h) {
        if (h.released || !s.alive()) {
            return; // released already: the mark would only fail its compare (still a write)
        }
        ByteString key = ByteString.copyFrom(h.key.getBytes());
        long revision = h.revision;
        ByteSequence jetcdKey = h.key;
        // bounded by the request timeout (a timer on this session thread: no other thread woken)
        driver.within(
                        driver.txn(
                                () -> TxnRequest.newBuilder()
                                        .addCompare(Compare.newBuilder()
                                                .setKey(key)
                                                .setResult(Compare.CompareResult.EQUAL)
                                                .setTarget(Compare.CompareTarget.CREATE)
                                                .setCreateRevision(revision))
                                        .addSuccess(RequestOp.newBuilder()
                                                .setRequestPut(PutRequest.newBuilder()
                                                        .setKey(key)
                                                        .setValue(HOLDER_MARK)
                                                        .setIgnoreLease(true)))
                                        .build(),
                                // jetcd 0.8's PutOption has no ignoreLease: the put names the
                                // session's lease, which is the key's own
                                () -> driver.kv()
                                        .txn()
                                        .If(new Cmp(jetcdKey, Cmp.Op.EQUAL, CmpTarget.createRevision(revision)))
                                        .Then(Op.put(
                                                jetcdKey,
                                                ByteSequence.from(HOLDER_MARK.toByteArray()),
                                                PutOption.builder()
                                                        .withLeaseId(s.leaseId)
                                                        .build()))
                                        .commit()),
                        driver.requestTimeoutNanos())
                .whenComplete((r, t) -> {
                    if (t != null) {
                        // without the mark the waiter behind us reads once, as it would anyway
                        log.debug("distlock.etcd.holder_mark_failed lock={} error={}", lockName, t.toString());
                    }
                });
    }

    /**
     * One range read (keys only): our key and the two keys created last before it. Our key alone:
     * we hold the lock. Otherwise the first older key is our predecessor, and it is the oldest key
     * if there is no second one. Null if our key is gone (deleted by someone else, or re-made with a
     * later revision): the caller makes it again with its transaction.
     */
    private Optional<HeldLock> list(Session s, boolean serializable) {
        GetResponse r = driver.await(upToOursRead(serializable), "predecessor read", lockName);
        List<KeyValue> kvs = r.getKvs();
        if (!isOurs(kvs)) {
            if (serializable) {
                return null; // perhaps a lagging member: the caller asks again, linearizably
            }
            ownKeyDeleted = true;
            return null;
        }
        if (kvs.size() == 1) {
            return Optional.of(hold(s));
        }
        if (serializable) {
            return Optional.empty(); // the caller asks again, linearizably
        }
        for (int i = 1; i < kvs.size(); i++) {
            checkNotForeign(kvs.get(i).getKey());
        }
        setPredecessor(
                kvs.get(1).getKey(),
                kvs.get(1).getCreateRevision(),
                kvs.size() == 2,
                r.getHeader().getRevision());
        return Optional.empty();
    }

    /**
     * Whether a listing ({@link #upToOurs}) starts with our key: its name and its create revision.
     * A serializable read from a member that is behind could otherwise show an earlier key of the
     * same name (one that an earlier attempt of ours on this session deleted before this one was
     * created: names are reused, see {@link Session#takeSlot()}) alone, and make us a holder while
     * another client holds the lock.
     */
    private boolean isOurs(List<KeyValue> kvs) {
        return !kvs.isEmpty()
                && kvs.get(0).getKey().equals(ourKey)
                && kvs.get(0).getCreateRevision() == ourRevision;
    }

    /** The read of {@link #upToOurs}: a direct gRPC call if the driver can, else jetcd's. */
    private java.util.concurrent.CompletableFuture<GetResponse> upToOursRead(boolean serializable) {
        long revision = ourRevision;
        return driver.range(
                () -> RangeRequest.newBuilder()
                        .setKey(rawPrefix)
                        .setRangeEnd(rawPrefixEnd)
                        .setSerializable(serializable)
                        .setMaxCreateRevision(revision)
                        .setSortTarget(RangeRequest.SortTarget.CREATE)
                        .setSortOrder(RangeRequest.SortOrder.DESCEND)
                        .setLimit(3)
                        .setKeysOnly(true)
                        .build(),
                () -> driver.kv().get(lockPrefix, upToOurs(serializable, revision)));
    }

    /** Keys under the prefix created up to ours, newest first, at most three. */
    private GetOption upToOurs(boolean serializable, long revision) {
        return GetOption.builder()
                .withSerializable(serializable)
                .isPrefix(true)
                .withMaxCreateRevision(revision)
                .withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.DESCEND)
                .withLimit(3)
                .withKeysOnly(true)
                .build();
    }

    /** Per-lock lease: this attempt's own lease while it lives, else a new one (one round trip). */
    private Session lockLease() {
        Session s = session;
        if (s != null && s.alive() && !Deadlines.passed(driver.ticker(), s.validUntil())) {
            return s;
        }
        return driver.grantLockLease(lockName);
    }

    /**
     * The oldest key under the lock's prefix decides who holds the lock. A key there that no
     * distlock client made ({@code <lease hex>-<slot hex>}) was written by someone else (another
     * application sharing the key prefix, or a hand edit): it would block the lock forever, or, if
     * it stood for a holder of some other protocol, make two holders. Fail clearly instead.
     */
    private void checkNotForeign(ByteSequence key) {
        String k = key.toString(java.nio.charset.StandardCharsets.UTF_8);
        String prefix = lockPrefixString;
        if (!k.startsWith(prefix)
                || !OUR_KEY.matcher(k.substring(prefix.length())).matches()) {
            // the engine abandons this contender, which deletes our own key
            throw new io.distlock.LockConfigurationException(
                    "a key under the lock's prefix was not written by distlock: '" + printable(k)
                            + "' blocks the lock; is the key prefix shared with another application? Delete the"
                            + " key, or give distlock its own keyPrefix (lock '" + lockName + "')",
                    "etcd");
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

    /**
     * The acquire transaction: create our key on the session's lease if absent and read the oldest
     * key (and, if created, the two newest) in the same snapshot; if our key exists, read it back
     * instead. A direct gRPC call if the driver can ({@link DirectKv}), else jetcd's.
     */
    private java.util.concurrent.CompletableFuture<TxnResponse> transaction(Session s) {
        return driver.txn(() -> rawTransaction(s), () -> jetcdTransaction(s));
    }

    private TxnRequest rawTransaction(Session s) {
        ByteString key = ByteString.copyFrom(ourKey.getBytes());
        RangeRequest owner = prefixRange(RangeRequest.SortOrder.ASCEND, 1);
        return TxnRequest.newBuilder()
                .addCompare(Compare.newBuilder()
                        .setKey(key)
                        .setResult(Compare.CompareResult.EQUAL)
                        .setTarget(Compare.CompareTarget.CREATE)
                        .setCreateRevision(0))
                .addSuccess(RequestOp.newBuilder()
                        .setRequestPut(PutRequest.newBuilder()
                                .setKey(key)
                                .setValue(ByteString.EMPTY)
                                .setLease(s.leaseId)))
                .addSuccess(RequestOp.newBuilder().setRequestRange(owner))
                .addSuccess(RequestOp.newBuilder().setRequestRange(prefixRange(RangeRequest.SortOrder.DESCEND, 2)))
                .addFailure(RequestOp.newBuilder()
                        .setRequestRange(RangeRequest.newBuilder().setKey(key)))
                .addFailure(RequestOp.newBuilder().setRequestRange(owner))
                .build();
    }

    /** Keys only under the lock's prefix, by create revision in {@code order}, at most {@code limit}. */
    private RangeRequest prefixRange(RangeRequest.SortOrder order, int limit) {
        return RangeRequest.newBuilder()
                .setKey(rawPrefix)
                .setRangeEnd(rawPrefixEnd)
                .setSortTarget(RangeRequest.SortTarget.CREATE)
                .setSortOrder(order)
                .setLimit(limit)
                .setKeysOnly(true)
                .build();
    }

    private java.util.concurrent.CompletableFuture<TxnResponse> jetcdTransaction(Session s) {
        Cmp absent = new Cmp(ourKey, Cmp.Op.EQUAL, CmpTarget.createRevision(0));
        Op put =
                Op.put(ourKey, EMPTY, PutOption.builder().withLeaseId(s.leaseId).build());
        Op owner = Op.get(lockPrefix, OWNER);
        return driver.kv()
                .txn()
                .If(absent)
                .Then(put, owner, Op.get(lockPrefix, NEWEST_TWO))
                .Else(Op.get(ourKey, GetOption.DEFAULT), owner)
                .commit();
    }

    /**
     * Watches our own key for deletion, starting {@value #OWN_KEY_WATCH_DELAY_MILLIS} ms from now
     * (a lock held and released within that time costs no watch stream and no watch message: jetcd
     * opens one gRPC stream per watcher) and from the revision after the one at which the
     * transaction saw the key, so nothing is missed: a delete by someone else (or by the lease's
     * end) is a loss for a holder and a wake-up for a waiter. The loss signal for a key deleted by
     * someone else may thus come up to that delay plus etcd 3.4's 100 ms unsynced-watcher period
     * late; a lease that ends is also seen by the keepalive, and the validity deadline never moves.
     * Does nothing if a watch for the current key is already set up or scheduled.
     */
    private void watchOwnKeyLater(long fromRevision) {
        ByteSequence key = ourKey;
        synchronized (ownWatchLock) {
            if (ownWatchStopped || ownWatch != null || ownWatchTask != null) {
                return;
            }
            EtcdDriver.Delayed task =
                    new EtcdDriver.Delayed(
                            driver.ticker().read() + TimeUnit.MILLISECONDS.toNanos(OWN_KEY_WATCH_DELAY_MILLIS)) {
                        @Override
                        public void run() {
                            synchronized (ownWatchLock) {
                                if (ownWatchTask != this) {
                                    return;
                                }
                                ownWatchTask = null;
                                if (ownWatchStopped || ownWatch != null || !key.equals(ourKey)) {
                                    return;
                                }
                                ownWatch = watchOwnKey(key, fromRevision);
                            }
                        }
                    };
            ownWatchTask = task;
            driver.runLater(task);
        }
    }

    /** Stops (or never starts) the own-key watch; {@code forGood}: no new one for this contender. */
    private void stopOwnWatch(boolean forGood) {
        WatchStream.Handle w;
        synchronized (ownWatchLock) {
            if (forGood) {
                ownWatchStopped = true;
            }
            if (ownWatchTask != null) {
                driver.cancelLater(ownWatchTask);
                ownWatchTask = null;
            }
            w = ownWatch;
            ownWatch = null;
        }
        if (w != null) {
            w.cancel();
        }
    }

    private WatchStream.Handle watchOwnKey(ByteSequence key, long fromRevision) {
        return driver.watchDeletes(key, fromRevision, true, new WatchStream.Listener() {
            @Override
            public void created(long revision) {}

            @Override
            public void deleted(long revision, long markedHolder) {
                // a loss signal runs user code (callbacks on lost()): not on a transport thread
                driver.runOnSessionThread(() -> ownKeyGone(key));
            }

            @Override
            public void failed(String reason) {
                // compaction or a closed client; the keepalive still watches the session
            }
        });
    }

    /**
     * Watches our predecessor (the key created last before ours) for deletion, for one wait: only
     * the next waiter in line is woken by a release, never the whole queue. With a provider-built
     * client the wait goes on the provider's shared watch stream ({@link WatchStream}): a standing
     * watch of the predecessor's key name if the provider has one (in a convoy, usually: no request
     * at all), else a new one (a create request, kept standing afterwards). No gRPC stream is opened
     * per wait. Only deletes after {@code listedAt} are reported: the first one is the delete of the
     * key we listed (it existed at {@code listedAt}; a later key of the same name can only be made
     * after it is gone).
     *
     * <p>A new watch starts at the server's current revision ("now"), so etcd serves it from its
     * synced group at once: a watch whose start revision is already history is served from the
     * "unsynced" group, which etcd 3.4 drains only every 100 ms. A delete between the read that
     * named the predecessor and the watch's start would be missed, so once the server confirms the
     * watch (its created reply carries the revision R after which it reports every event), one read
     * ({@link #confirm}) checks the predecessor is still there in a view at a revision ≥ R; if it is
     * gone, the waiter looks again at once.
     *
     * <p>When the predecessor goes: if it was the only key older than ours (by the listing that
     * named it, by the confirming read, or by the holder mark its delete carries — see {@link
     * #markHolder}), ours is now the oldest and the waiter holds the lock with no request at all;
     * otherwise one read lists the keys older than ours ({@link #list}): the predecessor may have
     * been a waiter that gave up, not the holder. The watch asks for each delete's previous
     * key-value for the mark.
     */
    private WatchStream.Handle watchPredecessor(long generation, ByteSequence pred, long predRevision, long listedAt) {
        ByteSequence key = ourKey;
        long revision = ourRevision;
        return driver.waitForDelete(pred, listedAt, new WatchStream.Listener() {
            @Override
            public void created(long revision) {
                if (revision > listedAt) {
                    // something was written between the read that named the predecessor and the
                    // watch's start: it may have been the predecessor's delete
                    confirm(generation, pred, revision, true);
                }
            }

            @Override
            public void deleted(long deletedAt, long markedHolder) {
                if (markedHolder != 0 && markedHolder == predRevision) {
                    // The delete of the very key we listed (same create revision), whose owner had
                    // marked it as the holder: it was then the oldest key, so it was the only key
                    // older than ours (it was the key created just before ours when we listed, at
                    // listedAt; keys created later have larger revisions than ours). Its delete
                    // leaves ours the oldest: hold without a read. Any other delete (unmarked: a
                    // waiter that gave up, a waiter's lease that ended, a holder whose mark had
                    // not arrived yet) is only a wake-up, answered by the read as before.
                    markOldestIfListed(pred, predRevision, key, revision);
                }
                predecessorGone(generation, pred);
            }

            @Override
            public void failed(String reason) {
                wakeFor(generation, null); // look again with a read; a failure proves nothing
            }
        });
    }

    /**
     * The read that confirms a wait's watch (keys only, the same read as {@link #list}): is the
     * predecessor still there, and is it now the only key older than ours (the keys before it may
     * have gone since it was named)? Then its delete will make us the holder without a request.
     *
     * <p>It is first sent serializable (no consensus round, answered by the member we talk to).
     * Its answer is used only if its header revision is at least {@code watchedFrom}, the revision
     * after which the watch reports every event: a view at such a revision includes every delete up
     * to the watch's start (members apply one log in one order, so the state at a revision is the
     * same on every member; a key once deleted never comes back with its old create revision). An
     * answer from a member that is behind is asked again linearizably.
     */
    private void confirm(long generation, ByteSequence pred, long watchedFrom, boolean serializable) {
        long revision = ourRevision;
        ByteSequence key = ourKey;
        if (key == null) {
            return; // the attempt ended
        }
        driver.within(upToOursRead(serializable), driver.requestTimeoutNanos()).whenComplete((r, t) -> {
            if (t != null) {
                wakeFor(generation, null); // unknown: look again with the transaction
                return;
            }
            if (r.getHeader().getRevision() < watchedFrom) {
                if (serializable) {
                    confirm(generation, pred, watchedFrom, false);
                } else {
                    wakeFor(generation, null); // cannot happen for a linearizable read
                }
                return;
            }
            List<KeyValue> kvs = r.getKvs();
            if (kvs.isEmpty() || !kvs.get(0).getKey().equals(key) || kvs.get(0).getCreateRevision() != revision) {
                // our own key is gone (deleted by someone else, or with its lease): never
                // "the predecessor is gone", which could make us a holder without a key
                if (key.equals(ourKey) && revision == ourRevision) {
                    ownKeyDeleted = true;
                }
                wakeFor(generation, null);
            } else if (kvs.size() < 2 || !kvs.get(1).getKey().equals(pred)) {
                // gone before the watch started: look again (or hold, if it was the oldest)
                predecessorGone(generation, pred);
            } else if (kvs.size() == 2) {
                markOldest(pred, key, revision);
            }
        });
    }

    /**
     * As {@link #markOldest}, only if {@code pred} (created at {@code predRevision}) is still the
     * predecessor we listed: the fact is about that key, not about a later key of the same name.
     */
    private void markOldestIfListed(ByteSequence pred, long predRevision, ByteSequence key, long revision) {
        mutex.lock();
        try {
            if (key != null
                    && key.equals(ourKey)
                    && revision == ourRevision
                    && pred.equals(predecessor)
                    && predRevision == predecessorRevision) {
                oldestPredecessor = pred;
            }
        } finally {
            mutex.unlock();
        }
    }

    /** {@code pred} was the only key older than {@code key} at {@code revision}; remember it if still ours. */
    private void markOldest(ByteSequence pred, ByteSequence key, long revision) {
        mutex.lock();
        try {
            if (key.equals(ourKey) && revision == ourRevision) {
                oldestPredecessor = pred;
            }
        } finally {
            mutex.unlock();
        }
    }

    private void predecessorGone(long generation, ByteSequence pred) {
        wakeFor(generation, pred);
    }

    private void wakeFor(long generation, ByteSequence gone) {
        mutex.lock();
        try {
            if (generation != waitGeneration) {
                return;
            }
            if (gone != null) {
                goneKey = gone;
            }
            changes++;
            changed.signalAll();
        } finally {
            mutex.unlock();
        }
    }

    private void ownKeyGone(ByteSequence key) {
        if (!key.equals(ourKey)) {
            return;
        }
        Held h = held;
        if (h != null) {
            if (!h.released) {
                ctx.reportLost(
                        "our key was deleted on the server (lease revoked or expired, or deleted by another"
                                + " client)",
                        null);
            }
        } else {
            ownKeyDeleted = true;
            wake();
        }
    }

    @Override
    public void sessionDied(String reason) {
        sessionDeath = reason;
        Held h = held;
        if (h != null && !h.released) {
            ctx.reportLost("session lease lost: " + reason, null);
        }
        wake();
    }

    void wake() {
        mutex.lock();
        try {
            changes++;
            changed.signalAll();
        } finally {
            mutex.unlock();
        }
    }

    @Override
    public void awaitChange(long deadlineNanos) throws InterruptedException {
        waiting = true;
        if (failedWhileWaiting) {
            pause(deadlineNanos);
            return;
        }
        Session s = session;
        ByteSequence pred = predecessor;
        long predRevision = predecessorRevision;
        long listedAt = predecessorListedAt;
        if (s == null || pred == null || driver.closed() || !s.alive() || ownKeyDeleted) {
            return;
        }
        long seen;
        long generation;
        mutex.lock();
        try {
            seen = changes;
            generation = ++waitGeneration;
            goneKey = null;
        } finally {
            mutex.unlock();
        }
        WatchStream.Handle w = watchPredecessor(generation, pred, predRevision, listedAt);
        try {
            mutex.lockInterruptibly();
            try {
                while (changes == seen && !driver.closed() && s.alive() && !ownKeyDeleted) {
                    // also stop at the session's validity deadline: a dead session cannot wait
                    long until = s.validUntil();
                    long limit = deadlineNanos - until < 0 ? deadlineNanos : until;
                    long left = Deadlines.remaining(driver.ticker(), limit);
                    if (left <= 0) {
                        return;
                    }
                    changed.awaitNanos(Math.min(left, TimeUnit.SECONDS.toNanos(60)));
                }
            } finally {
                mutex.unlock();
            }
        } finally {
            w.cancel();
        }
    }

    /** Waits {@value #RETRY_PAUSE_MILLIS} ms after a failed try (or less: deadline, wake-up). */
    private void pause(long deadlineNanos) throws InterruptedException {
        long until = Deadlines.after(driver.ticker().read(), TimeUnit.MILLISECONDS.toNanos(RETRY_PAUSE_MILLIS));
        long limit = deadlineNanos - until < 0 ? deadlineNanos : until;
        mutex.lockInterruptibly();
        try {
            long seen = changes;
            while (changes == seen && !driver.closed()) {
                long left = Deadlines.remaining(driver.ticker(), limit);
                if (left <= 0) {
                    return;
                }
                changed.awaitNanos(left);
            }
        } finally {
            mutex.unlock();
        }
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
        stopOwnWatch(forGood);
        ByteSequence key = ourKey;
        if (key == null) {
            return;
        }
        setOurs(null, 0);
        long slot = ourSlot;
        ourSlot = 0;
        if (driver.closed() && s != null && !s.alive()) {
            return; // the provider revoked (or crashed with) the lease
        }
        if (driver.perLockLease() && s != null) {
            if (s.alive() && !driver.closed()) { // a closing provider revokes every lock lease itself
                driver.revokeLockLease(s, lockName, "revoke of our lock lease");
            }
            return; // a dead lock lease took our key with it
        }
        try {
            driver.deleteKey(key, s, lockName, "delete of our key");
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

    /** A held lock: our key is the oldest under the lock's prefix. */
    private final class Held implements HeldLock {
        private final Session session;
        private final ByteSequence key;
        private final long slot;
        private final long revision;
        volatile boolean released;

        Held(Session session, ByteSequence key, long slot, long revision) {
            this.session = session;
            this.key = key;
            this.slot = slot;
            this.revision = revision;
        }

        @Override
        public OptionalLong fencingToken() {
            return OptionalLong.of(revision);
        }

        @Override
        public long validUntilNanos() {
            return session.validUntil();
        }

        @Override
        public boolean release() {
            released = true;
            session.unlisten(EtcdContender.this);
            driver.unregister(EtcdContender.this);
            stopOwnWatch(true);
            if (driver.closed() && !session.alive()) {
                return false;
            }
            if (driver.perLockLease()) {
                // revoking our own lease deletes our key (and nothing else): one round trip
                return session.alive() && driver.revokeLockLease(session, lockName, "release");
            }
            boolean deleted = driver.deleteKey(key, session, lockName, "release") > 0;
            session.freeSlot(slot); // the key is gone: a later attempt may use its name
            return deleted;
        }
    }
}
