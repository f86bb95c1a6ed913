package io.distlock.redlock.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.Ticker;
import io.distlock.redis.core.Owners;
import io.distlock.redis.core.RedisKeys;
import io.distlock.redis.core.Scripts;
import io.distlock.redis.core.Subscriber;
import io.distlock.redlock.RedlockLockOptions;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.Deadlines;
import io.distlock.spi.HeldLock;
import io.distlock.spi.LockDriver;
import io.distlock.spi.RenewalMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redlock driver over N independent masters. Every round goes to all nodes at once (each node has
 * its own connection pool and I/O threads) and ends as soon as its outcome is decided or after the
 * per-node timeout. The Lua scripts are lock-redis's ({@link Scripts}): {@code REDLOCK_ACQUIRE},
 * {@code REDLOCK_RAISE}, {@code RENEW} and {@code RELEASE}; the key layout is lock-redis's {@link
 * RedisKeys} under Redlock's own prefix.
 *
 * <p>Acquisition with fencing (one round, two when the nodes' counters differ): round 1 is {@code
 * SET lock owner NX PX lease} on every node and, where granted, increments the node's fencing
 * counter in the same script; with a majority, {@code t = max(values returned by granting nodes)}.
 * If a majority returned exactly {@code t}, {@code t} is already written on a majority and the lock
 * is held; otherwise round 2 raises the counter to {@code t} on every node that still holds our
 * owner value, and the lock is held only if round 2 succeeded on a majority before the validity
 * ({@code lease - elapsed - drift}) ran out; otherwise it is released on every node, including those
 * that did not answer. Without fencing, round 1 alone decides (the counters still move).
 *
 * <p>Waiting: on the lock's release channel on every node (lock-redis's {@link Subscriber}, one per
 * node, merged by {@link Waiters}: one local waiter woken per release), bounded by the holder's TTL;
 * a woken waiter asks one leader node first, so waiters woken together do not split the votes; a
 * jittered delay of up to {@link RedlockLockOptions#maxRetryDelay()} when fewer than a majority of
 * subscriptions are confirmed.
 */
public final class RedlockDriver implements LockDriver, RedlockInternals {
    private static final Logger log = LoggerFactory.getLogger(RedlockDriver.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    static final String BACKEND = "redlock";

    private final List<Node> nodes;
    private final int quorum;
    private final RedlockLockOptions options;
    private final LockOptions lockOptions;
    private final RedisKeys keys;
    private final Capabilities capabilities;
    private final String leaseMillis;
    private final long nodeTimeoutNanos;
    private final Ticker ticker;
    private final CountDownLatch closedSignal = new CountDownLatch(1);
    private final Waiters waiters;
    private volatile boolean closed;

    private RedlockDriver(List<NodeAddress> addresses, RedlockLockOptions options, LockOptions lockOptions) {
        this.options = options;
        this.lockOptions = lockOptions;
        this.keys = new RedisKeys(options.keyPrefix());
        this.quorum = addresses.size() / 2 + 1;
        this.ticker = lockOptions.ticker();
        this.leaseMillis = Long.toString(lockOptions.leaseTime().toMillis());
        this.nodeTimeoutNanos = options.nodeTimeout().toNanos();
        this.capabilities = Capabilities.builder()
                .fencing(options.fencing() ? Capabilities.Fencing.MONOTONIC_PER_LOCK : Capabilities.Fencing.NONE)
                .fencingSurvivesServerRestart(options.fencing() && options.assumePersistence())
                .automaticRenewal(true)
                .wakeUp(Capabilities.WakeUp.NOTIFICATION)
                .fifo(false)
                .reentrant(false)
                .failover(Capabilities.Failover.MAY_GRANT_TWICE)
                .build();
        String threadPrefix = "distlock-redlock-io-" + SEQUENCE.incrementAndGet();
        List<Node> opened = new ArrayList<>();
        try {
            for (int i = 0; i < addresses.size(); i++) {
                opened.add(new Node(i, addresses.get(i), options, lockOptions.ticker(), threadPrefix));
            }
        } catch (RuntimeException e) {
            opened.forEach(Node::close);
            throw e;
        }
        this.nodes = List.copyOf(opened);
        this.waiters = new Waiters(nodes, ticker);
        List<Scripts.Script> scripts = options.fencing()
                ? List.of(Scripts.REDLOCK_ACQUIRE, Scripts.REDLOCK_RAISE, Scripts.RENEW, Scripts.RELEASE)
                : List.of(Scripts.REDLOCK_ACQUIRE, Scripts.RENEW, Scripts.RELEASE);
        nodes.forEach(n -> n.warmUp(scripts));
    }

    public static RedlockDriver create(
            List<NodeAddress> addresses, RedlockLockOptions options, LockOptions lockOptions) {
        int n = addresses.size();
        if (n < 3) {
            throw new IllegalArgumentException("Redlock needs at least 3 independent nodes (was " + n + ")");
        }
        if (n % 2 == 0 && !options.allowEvenNodeCount()) {
            throw new IllegalArgumentException("the number of Redlock nodes must be odd (was " + n
                    + "; an even count tolerates no more failures than one node less; allowEvenNodeCount(true)"
                    + " accepts it)");
        }
        if (addresses.stream().distinct().count() != n) {
            throw new IllegalArgumentException("Redlock nodes must be distinct (was " + addresses + ")");
        }
        return new RedlockDriver(addresses, options, lockOptions);
    }

    /** {@code host:port} of each node, in configuration order. */
    public List<String> addresses() {
        return nodes.stream().map(Node::address).toList();
    }

    @Override
    public RedisKeys keys() {
        return keys;
    }

    /** The nodes, in configuration order (for tests in this package). */
    List<Node> nodes() {
        return nodes;
    }

    /** Votes needed: {@code N / 2 + 1}. */
    public int quorum() {
        return quorum;
    }

    @Override
    public String backend() {
        return BACKEND;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public RenewalMode renewalMode() {
        return RenewalMode.WATCHDOG;
    }

    @Override
    public Contender contender(AcquireContext ctx) {
        return new RedlockContender(ctx);
    }

    @Override
    public void close() {
        closed = true;
        closedSignal.countDown();
        waiters.close();
        RuntimeException failure = null;
        for (Node n : nodes) {
            try {
                n.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * End of a round started at {@code sentAt}: {@code nodeTimeout} later, never past the validity.
     * Until a majority of nodes has answered once since the provider opened, the first connection
     * (TCP connect, handshake, script load) counts too and {@code connectTimeout} is added, so the
     * first acquisition of a fresh client does not fail on cold connections; a round still ends as
     * soon as its outcome is decided, so a node that never answers delays nothing once a majority
     * did.
     */
    private long roundDeadline(long sentAt, long validUntil) {
        long timeout = nodeTimeoutNanos;
        if (nodes.stream().filter(Node::isWarm).count() < quorum) {
            timeout =
                    Deadlines.after(timeout, options.timeouts().connectTimeout().toNanos());
        }
        return Math.min(Deadlines.after(sentAt, timeout), validUntil);
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    private static long flag(List<?> reply) {
        return (Long) reply.get(0);
    }

    private static long counter(List<?> reply) {
        return Long.parseLong(String.valueOf(reply.get(1)));
    }

    /**
     * Deletes {@code owner}'s lock on every node whose round-1 request did not answer "no": on a
     * node still busy with that request, the release follows it, so a late acquisition is undone
     * too. Fire-and-forget; the keys expire with their TTL anyway.
     */
    private void releaseEverywhere(Round<List<?>> round1, String name, String owner) {
        List<String> keyList = List.of(keys.lockKey(name));
        List<String> args = List.of(owner, keys.channel(name));
        for (Node n : nodes) {
            int i = n.index();
            if (round1.dropIfNotSent(i)) {
                continue; // still queued behind other work: it will never be sent
            }
            round1.future(i).handle((reply, error) -> {
                if (error == null && flag(reply) != 1L) {
                    return null; // this node never held our value
                }
                if (error != null && unwrap(error) instanceof Node.StaleRequestException) {
                    return null; // never sent
                }
                n.<Long>run(Scripts.RELEASE, keyList, args).whenComplete((r, e) -> {
                    if (e != null) {
                        log.debug("distlock.redlock.release_failed lock={} node={}", name, n.address(), e);
                    }
                });
                return null;
            });
        }
    }

    /**
     * Node {@code n}'s request, written by the calling thread on one of the node's direct
     * connections if one is idle (no thread hop), through the node's I/O threads otherwise.
     */
    private static <T> CompletableFuture<T> directOrIo(
            Node n,
            Scripts.Script script,
            List<String> keyList,
            List<String> args,
            java.util.function.BooleanSupplier send,
            java.util.function.Consumer<Node.DirectRequest<T>> direct) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Node.DirectRequest<T> d = n.sendDirect(script, keyList, args, send, f);
        if (d == null) {
            return n.run(script, keyList, args, send);
        }
        direct.accept(d);
        return f;
    }

    /** The last moment a round may wait for nodes that were sent their request late. */
    private long roundCap(long sentAt, long firstDeadline, long validUntil) {
        return Math.min(
                validUntil,
                Math.max(
                        firstDeadline,
                        Deadlines.after(
                                sentAt, options.timeouts().requestTimeout().toNanos())));
    }

    /**
     * The failure of a round that did not reach a majority: a {@link LockConfigurationException} if
     * the nodes that refused the configuration (credentials, an ACL permission, the TLS trust) leave
     * too few for a majority, which no retry can change; otherwise a {@link
     * BackendUnavailableException}. Both name the nodes and why each failed.
     */
    private RuntimeException noMajority(String name, String what, Round<?> round, long deadline) {
        String unanswered = round.describeUnanswered(!round.isDecided() || Deadlines.passed(ticker, deadline));
        int refused = round.configurationFailureCount();
        if (nodes.size() - refused < quorum) {
            return new LockConfigurationException(
                    what + ": " + refused + " of " + nodes.size()
                            + " Redlock nodes refused the credentials, a permission or the TLS trust, a majority of "
                            + quorum + " is needed; refused: " + unanswered,
                    BACKEND,
                    round.firstError());
        }
        return new BackendUnavailableException(
                what + ": " + (nodes.size() - round.unansweredCount()) + " of " + nodes.size()
                        + " Redlock nodes answered within "
                        + options.nodeTimeout().toMillis() + " ms, a majority of "
                        + quorum + " is needed; unreachable: "
                        + unanswered,
                name,
                BACKEND,
                round.firstError());
    }

    private final class RedlockContender implements Contender {
        private final AcquireContext ctx;
        private final String name;
        private final List<String> keyList;
        private long holderTtlNanos;
        /** Whether the last try got some votes but no majority (a split vote with other contenders). */
        private boolean splitVote;
        /** Whether the next try asks the probe leader first (after a wake-up: other waiters compete). */
        private boolean probe;

        private Waiters.Waiter waiter;

        RedlockContender(AcquireContext ctx) {
            this.ctx = ctx;
            this.name = ctx.lockName();
            this.keyList = List.of(keys.lockKey(name), keys.tokenKey(name));
        }

        @Override
        public Optional<HeldLock> tryAcquire() {
            if (closed) {
                throw new IllegalStateException("provider is closed (lock '" + name + "', backend redlock)");
            }
            if (waiter != null) {
                waiter.beginTry();
            }
            splitVote = false;
            String owner = Owners.newOwner();
            long sentAt = ticker.read();
            long validUntil = ctx.validUntil(sentAt);
            List<String> args = List.of(owner, leaseMillis);
            long round1Deadline = roundDeadline(sentAt, validUntil);
            Node leader = probe ? probeLeader() : null;
            probe = false;
            CompletableFuture<List<?>> leaderReply = null;
            if (leader != null) {
                // Woken with other waiters: ask one node first. Exactly one of them gets it there
                // and then asks the others; the rest learn they lost from one node, instead of all
                // of them splitting the votes of every node.
                leaderReply = leader.run(Scripts.REDLOCK_ACQUIRE, keyList, args, null);
                List<?> reply = awaitQuietly(leaderReply, round1Deadline);
                if (reply != null && flag(reply) != 1L) {
                    long pttl = reply.size() > 2 ? (Long) reply.get(2) : -1;
                    holderTtlNanos = pttl >= 0 ? TimeUnit.MILLISECONDS.toNanos(pttl + 1) : 0;
                    return Optional.empty();
                }
                if (reply == null && !leaderReply.isDone()) {
                    leader.markSuspect(); // no answer in time: the round goes on without it
                }
                round1Deadline = roundDeadline(ticker.read(), validUntil);
            }
            CompletableFuture<List<?>> probed = leaderReply;
            Round<List<?>> round1 = Round.startDirect(
                    ticker,
                    nodes,
                    quorum,
                    reply -> flag(reply) == 1L,
                    (n, send, direct) ->
                            n == leader ? probed : directOrIo(n, Scripts.REDLOCK_ACQUIRE, keyList, args, send, direct));
            if (leader != null) {
                round1.markSent(leader.index());
            }
            boolean majority = round1.awaitTimed(
                    ticker, round1Deadline, nodeTimeoutNanos, roundCap(sentAt, round1Deadline, validUntil));
            if (!majority || Deadlines.passed(ticker, validUntil)) {
                return fail(round1, owner, round1Deadline);
            }
            if (!options.fencing()) {
                leave(true);
                return Optional.of(new Held(ctx, owner, round1, OptionalLong.empty(), validUntil));
            }
            // Round 1 incremented the counter on every node that granted it (while holding the lock
            // there): the token is the largest of those values. If a majority already has exactly
            // that value, the register's write is done and round 2 is not needed (the usual case:
            // the nodes' counters move together); otherwise round 2 raises the others to it.
            long t = 0;
            int atT = 0;
            for (Node n : nodes) {
                List<?> reply = round1.answer(n.index());
                if (reply != null && flag(reply) == 1L) {
                    long c = counter(reply);
                    if (c > t) {
                        t = c;
                        atT = 1;
                    } else if (c == t) {
                        atT++;
                    }
                }
            }
            if (atT >= quorum) {
                leave(true);
                return Optional.of(new Held(ctx, owner, round1, OptionalLong.of(t), validUntil));
            }
            List<String> raiseArgs = List.of(owner, Long.toString(t));
            long round2Start = ticker.read();
            long round2Deadline = roundDeadline(round2Start, validUntil);
            Round<Long> round2 = Round.startDirect(ticker, nodes, quorum, v -> v == 1L, (n, send, direct) -> {
                CompletableFuture<List<?>> r1 = round1.future(n.index());
                if (r1.isDone() && !r1.isCompletedExceptionally()) {
                    // round 1 answered here (as it usually has): raise from this thread at once
                    return flag(r1.join()) == 1L
                            ? directOrIo(n, Scripts.REDLOCK_RAISE, keyList, raiseArgs, send, direct)
                            : CompletableFuture.completedFuture(0L);
                }
                // still pending (or failed): raise once (if) it granted, through the I/O threads
                return r1.thenCompose(reply -> flag(reply) == 1L
                        ? n.<Long>run(Scripts.REDLOCK_RAISE, keyList, raiseArgs, send)
                        : CompletableFuture.completedFuture(0L));
            });
            boolean raised = round2.awaitTimed(
                    ticker, round2Deadline, nodeTimeoutNanos, roundCap(round2Start, round2Deadline, validUntil));
            if (!raised || Deadlines.passed(ticker, validUntil)) {
                releaseEverywhere(round1, name, owner);
                if (!raised
                        && round2.yesCount() + round2.unansweredCount() >= quorum
                        && !Deadlines.passed(ticker, validUntil)) {
                    throw noMajority(
                            name,
                            "fencing round for lock '" + name + "' did not reach a majority",
                            round2,
                            round2Deadline);
                }
                holderTtlNanos = 0;
                return Optional.empty();
            }
            leave(true);
            return Optional.of(new Held(ctx, owner, round1, OptionalLong.of(t), validUntil));
        }

        /**
         * The node asked first after a wake-up: the same for every client of the lock (chosen by
         * the name's hash), unless it failed recently; then the next fit one.
         */
        private Node probeLeader() {
            int start = Math.floorMod(name.hashCode(), nodes.size());
            for (int k = 0; k < nodes.size(); k++) {
                Node n = nodes.get((start + k) % nodes.size());
                if (n.fitToLead()) {
                    return n;
                }
            }
            return null;
        }

        private Optional<HeldLock> fail(Round<List<?>> round1, String owner, long round1Deadline) {
            releaseEverywhere(round1, name, owner);
            if (nodes.size() - round1.unansweredCount() < quorum) {
                throw noMajority(name, "cannot acquire lock '" + name + "'", round1, round1Deadline);
            }
            splitVote = round1.yesCount() > 0;
            long ttl = Long.MAX_VALUE;
            for (Node n : nodes) {
                List<?> reply = round1.answer(n.index());
                if (reply != null && flag(reply) != 1L && reply.size() > 2) {
                    long pttl = (Long) reply.get(2);
                    if (pttl >= 0) {
                        ttl = Math.min(ttl, pttl + 1);
                    }
                }
            }
            holderTtlNanos = ttl == Long.MAX_VALUE ? 0 : TimeUnit.MILLISECONDS.toNanos(ttl);
            return Optional.empty();
        }

        /**
         * Waits for a release message of the lock from any node (the provider's {@link Waiters}:
         * subscribed on every node, one waiter woken per release), bounded by the shortest TTL a
         * refusing node reported for the holder's key. The first wait only subscribes and returns
         * once a majority of nodes confirmed, so a release between the try and the subscription is
         * not missed (a release publishes on a majority, which meets the confirmed majority). Falls
         * back to a jittered delay while fewer than a majority of subscriptions are confirmed or
         * when no node reported a TTL; after a split vote, a short random delay.
         */
        @Override
        public void awaitChange(long deadlineNanos) throws InterruptedException {
            if (closed) {
                return;
            }
            long now = ticker.read();
            if (splitVote) {
                // Contenders woken by the same release split the votes and all released again: the
                // lock is probably free, but retrying in step would split again. A short random
                // delay (the Redlock specification's), then a probe of the leader node first.
                long jitter = ThreadLocalRandom.current()
                        .nextLong(options.maxRetryDelay().toNanos() / 4 + 1);
                sleepUntil(Math.min(deadlineNanos, Deadlines.after(now, jitter)), now);
                probe = true;
                return;
            }
            if (waiter == null) {
                waiter = waiters.join(keys.channel(name));
                long confirmBy = Math.min(
                        deadlineNanos,
                        Deadlines.after(
                                now,
                                nodeTimeoutNanos
                                        + options.timeouts().connectTimeout().toNanos()));
                waiter.group().awaitConfirmed(quorum, confirmBy);
                probe = true;
                return;
            }
            if (holderTtlNanos > 0 && waiter.group().confirmedCount() >= quorum) {
                Waiters.Wake wake = waiter.await(Math.min(deadlineNanos, Deadlines.after(now, holderTtlNanos)));
                // after a release others compete: probe first; after the holder's TTL, a full round
                probe = wake == Waiters.Wake.RELEASE || wake == Waiters.Wake.MAYBE_MISSED;
                return;
            }
            long max = options.maxRetryDelay().toNanos();
            long wait = ThreadLocalRandom.current().nextLong(max / 4, max + 1);
            if (holderTtlNanos > 0) {
                wait = Math.min(wait, holderTtlNanos);
            }
            sleepUntil(Math.min(deadlineNanos, Deadlines.after(now, wait)), now);
        }

        private void sleepUntil(long until, long now) throws InterruptedException {
            long left = until - now;
            if (left > 0) {
                closedSignal.await(left, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public void abandon() {
            leave(false);
        }

        private void leave(boolean acquired) {
            Waiters.Waiter w = waiter;
            if (w != null) {
                waiter = null;
                w.leave(acquired);
            }
        }
    }

    /**
     * The reply of {@code f} by {@code deadline}, or null (failed or late). An interrupt does not
     * cut the wait short (it is bounded by the node timeout); the flag is set again afterwards.
     */
    private <T> T awaitQuietly(CompletableFuture<T> f, long deadline) {
        boolean interrupted = false;
        try {
            while (true) {
                long left = Deadlines.remaining(ticker, deadline);
                try {
                    return left <= 0 ? f.getNow(null) : f.get(left, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (java.util.concurrent.ExecutionException
                        | java.util.concurrent.TimeoutException
                        | java.util.concurrent.CancellationException e) {
                    return null;
                } catch (java.util.concurrent.CompletionException e) {
                    return null;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private final class Held implements HeldLock {
        private final AcquireContext ctx;
        private final String owner;
        private final Round<List<?>> round1;
        private final OptionalLong token;
        private volatile long validUntil;

        Held(AcquireContext ctx, String owner, Round<List<?>> round1, OptionalLong token, long validUntil) {
            this.ctx = ctx;
            this.owner = owner;
            this.round1 = round1;
            this.token = token;
            this.validUntil = validUntil;
        }

        @Override
        public OptionalLong fencingToken() {
            return token;
        }

        @Override
        public long validUntilNanos() {
            return validUntil;
        }

        @Override
        public boolean renew() {
            String name = ctx.lockName();
            long sentAt = ticker.read();
            List<String> keyList = List.of(keys.lockKey(name));
            List<String> args = List.of(owner, leaseMillis);
            long deadline = roundDeadline(sentAt, validUntil);
            Round<Long> round = Round.startDirect(
                    ticker,
                    nodes,
                    quorum,
                    v -> v == 1L,
                    (n, send, direct) -> directOrIo(n, Scripts.RENEW, keyList, args, send, direct));
            boolean extended =
                    round.awaitTimed(ticker, deadline, nodeTimeoutNanos, roundCap(sentAt, deadline, validUntil));
            if (extended && !Deadlines.passed(ticker, validUntil)) {
                validUntil = ctx.validUntil(sentAt);
                return true;
            }
            if (round.noCount() > nodes.size() - quorum) {
                return false; // a majority no longer holds our value
            }
            if (extended) {
                throw new BackendUnavailableException(
                        "renewal of lock '" + name + "' reached a majority only after the validity ran out",
                        name,
                        BACKEND,
                        null);
            }
            throw noMajority(name, "cannot renew lock '" + name + "'", round, deadline);
        }

        /**
         * Compare-and-delete on every node, on each node's release lane (never behind acquisition
         * rounds). Ends as soon as a majority deleted our value ({@code true}) or a majority no
         * longer held it ({@code false}); otherwise, once every node answered or timed out, {@code
         * true} if a majority answered (nodes that refused round 1 never held our value), else
         * {@link BackendUnavailableException}. A node has {@code nodeTimeout} from the moment its request is sent (not
         * from the start of the round, so a client thread scheduled late does not count against
         * the node), and the round ends at the latest after the request timeout.
         */
        @Override
        public boolean release() {
            String name = ctx.lockName();
            List<String> keyList = List.of(keys.lockKey(name));
            List<String> args = List.of(owner, keys.channel(name));
            long sentAt = ticker.read();
            Round<Long> round = Round.<Long>startDirect(ticker, nodes, quorum, v -> v == 1L, (n, send, direct) -> {
                        if (round1.dropIfNotSent(n.index())) {
                            // round 1 never reached this node (it was still queued): nothing to delete
                            return CompletableFuture.completedFuture(0L);
                        }
                        CompletableFuture<List<?>> r1 = round1.future(n.index());
                        if (r1.isDone()) {
                            // from this thread if a direct connection is idle, else on the release lane
                            CompletableFuture<Long> f = new CompletableFuture<>();
                            Node.DirectRequest<Long> d = n.sendReleaseDirect(Scripts.RELEASE, keyList, args, send, f);
                            if (d == null) {
                                return n.runRelease(Scripts.RELEASE, keyList, args, send);
                            }
                            direct.accept(d);
                            return f;
                        }
                        // otherwise the release follows round 1's request there
                        return r1.handle((r, e) -> null)
                                .thenCompose(ignored -> n.<Long>runRelease(Scripts.RELEASE, keyList, args, send));
                    })
                    .neverDropped();
            long releaseDeadline = Deadlines.after(sentAt, nodeTimeoutNanos);
            round.awaitTimed(
                    ticker,
                    releaseDeadline,
                    nodeTimeoutNanos,
                    Deadlines.after(sentAt, options.timeouts().requestTimeout().toNanos()));
            if (round.yesCount() >= quorum) {
                return true;
            }
            if (round.noCount() >= quorum) {
                log.debug("distlock.redlock.release_not_owner lock={}", name);
                return false; // a majority no longer held our value
            }
            if (round.yesCount() + round.noCount() >= quorum) {
                // a majority answered, but our value was on fewer (nodes that refused round 1, a
                // node that did not answer in time): at most a minority may still hold it, until its TTL
                log.debug("distlock.redlock.release_by_answers lock={}", name);
                return true;
            }
            throw noMajority(name, "release of lock '" + name + "' is unconfirmed", round, releaseDeadline);
        }
    }
}
