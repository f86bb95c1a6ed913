package io.distlock.redlock.internal;

import static io.distlock.redlock.internal.Quorum.directOrIo;

import io.distlock.BackendUnavailableException;
import io.distlock.Ticker;
import io.distlock.redis.core.Scripts;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Deadlines;
import io.distlock.spi.HeldLock;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock this provider holds on a majority: renewed and extended by compare-and-{@code PEXPIRE} on
 * every node (the new validity only if a majority set it within the remaining validity), released
 * by compare-and-delete, or let run out after a delay by compare-and-{@code PEXPIRE}, on every
 * node's release lane.
 *
 * <p>On each node, this lock's requests that set or end its time to live reach the server in the
 * order they were made: a round ends once a majority answered, so its request to a slow node may
 * still be queued or in flight when the next one starts, on another connection. Each node's last
 * such request is remembered ({@link #ttlRequests}), and the next extension, delayed release or
 * single renewal to that node is sent only when it has been answered, failed or dropped ({@link
 * #joinBatch} records a batched renewal's). Without this, a renewal still on its way to a node could land after
 * an extension or a delayed release there and set the old time to live again. A release does not
 * wait: a renewal that lands after the delete finds no value of ours and changes nothing.
 */
final class RedlockHeldLock implements HeldLock {
    private static final Logger log = LoggerFactory.getLogger(RedlockHeldLock.class);

    private final RedlockDriver driver;
    private final Quorum quorum;
    private final Ticker ticker;
    private final AcquireContext ctx;
    private final String owner;
    private final Round<List<?>> round1;
    private final OptionalLong token;
    private volatile long validUntil;
    /** The time to live renewals set: the acquisition's lease time, or the last extension's. */
    private volatile Duration leaseTime;
    /** The waiters whose queue member got the lock (taken off the queue on release), or null. */
    private final Waiters.Group queuedIn;
    /** Set once the lock is released or left to run out: a batch renewal then leaves it alone. */
    private volatile boolean ended;
    /**
     * Per node, the last request that set this lock's time to live there (a renewal, batched or
     * not, or an extension), or null: the next one waits for it. Guarded by this.
     */
    private final CompletableFuture<?>[] ttlRequests;

    RedlockHeldLock(
            RedlockDriver driver,
            AcquireContext ctx,
            String owner,
            Round<List<?>> round1,
            OptionalLong token,
            long validUntil,
            Waiters.Group queuedIn) {
        this.driver = driver;
        this.quorum = driver.quorum();
        this.ticker = quorum.ticker();
        this.ctx = ctx;
        this.owner = owner;
        this.round1 = round1;
        this.token = token;
        this.validUntil = validUntil;
        this.leaseTime = ctx.leaseTime();
        this.queuedIn = queuedIn;
        this.ttlRequests = new CompletableFuture<?>[quorum.nodes().size()];
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
        return setTimeToLive(leaseTime, "cannot renew lock '");
    }

    /**
     * Sets the lock's time to live to {@code leaseTime} on every node where it still holds our owner
     * value, in one parallel round; later renewals use it too. Extended only if a majority set it
     * within the remaining validity; the new validity is then counted, as an acquisition's, from
     * before the round: {@code leaseTime - elapsed - drift}.
     *
     * @throws IllegalArgumentException if {@code leaseTime} is not more than twice the node timeout
     */
    @Override
    public boolean extend(Duration leaseTime) {
        quorum.checkLeaseTime(leaseTime);
        if (!setTimeToLive(leaseTime, "cannot extend lock '")) {
            return false;
        }
        this.leaseTime = leaseTime;
        return true;
    }

    /**
     * One compare-and-{@code PEXPIRE} round to every node: {@code true} (and the validity moved)
     * if a majority set {@code ttl} before the validity ran out, {@code false} if a majority no
     * longer holds our value; otherwise the outcome is unknown ({@link
     * BackendUnavailableException}).
     */
    private boolean setTimeToLive(Duration ttl, String what) {
        String name = ctx.lockName();
        long sentAt = ticker.read();
        List<String> keyList = List.of(quorum.keys().lockKey(name));
        List<String> args = List.of(owner, Long.toString(ttl.toMillis()));
        long deadline = quorum.roundDeadline(sentAt, validUntil);
        Round<Long> round;
        synchronized (this) {
            round = Round.startDirect(ticker, quorum.nodes(), quorum.size(), v -> v == 1L, (n, send, direct) -> {
                CompletableFuture<?> before = pending(n.index());
                CompletableFuture<Long> f = before == null
                        ? directOrIo(n, Scripts.RENEW, keyList, args, send, direct)
                        : after(before, () -> n.<Long>run(Scripts.RENEW, keyList, args, send));
                ttlRequests[n.index()] = f;
                return f;
            });
        }
        boolean extended = round.awaitTimed(
                ticker, deadline, quorum.nodeTimeoutNanos(), quorum.roundCap(sentAt, deadline, validUntil));
        if (extended && !Deadlines.passed(ticker, validUntil)) {
            renewed(sentAt, ttl);
            return true;
        }
        if (round.noCount() > quorum.nodes().size() - quorum.size()) {
            return false; // a majority no longer holds our value
        }
        if (extended) {
            throw renewedTooLate(what);
        }
        throw quorum.noMajority(name, what + name + "'", round, deadline);
    }

    /** A majority set {@code ttl} by a round sent at {@code sentAt} (ticker reading): the validity follows. */
    void renewed(long sentAt, Duration ttl) {
        validUntil = ttl == ctx.leaseTime() ? ctx.validUntil(sentAt) : ctx.validUntil(sentAt, ttl);
    }

    /** The failure of a round whose majority set the time to live only after the validity ran out. */
    BackendUnavailableException renewedTooLate(String what) {
        String name = ctx.lockName();
        return new BackendUnavailableException(
                what + name + "': a majority set its time to live only after the validity ran out",
                name,
                Quorum.BACKEND,
                null);
    }

    /** Node {@code node}'s last time-to-live request of this lock if it is still pending, else null. Holding this. */
    private CompletableFuture<?> pending(int node) {
        CompletableFuture<?> f = ttlRequests[node];
        if (f != null && f.isDone()) {
            ttlRequests[node] = null;
            return null;
        }
        return f;
    }

    /** Node {@code node}'s last request that set this lock's time to live, or null (for tests). */
    synchronized CompletableFuture<?> lastTimeToLiveRequest(int node) {
        return ttlRequests[node];
    }

    /** {@code request} started once {@code before} is done, whatever its outcome. */
    private static <T> CompletableFuture<T> after(CompletableFuture<?> before, Supplier<CompletableFuture<T>> request) {
        return before.handle((r, e) -> null).thenCompose(ignored -> request.get());
    }

    /**
     * A batched renewal is about to send this lock's renewal, whose request to node {@code i}
     * completes {@code sent[i]}: whether it may (the lock has not ended). If so, this lock's next
     * extension or delayed release waits for {@code sent} on each node. The batch does not wait for
     * this lock's earlier requests: it sets the lease time the lock has now, as they do.
     */
    synchronized boolean joinBatch(CompletableFuture<?>[] sent) {
        if (ended) {
            return false;
        }
        System.arraycopy(sent, 0, ttlRequests, 0, ttlRequests.length);
        return true;
    }

    String lockName() {
        return ctx.lockName();
    }

    /** This hold's owner value on the nodes. */
    String owner() {
        return owner;
    }

    /** The time to live renewals set: the acquisition's lease time, or the last extension's. */
    Duration leaseTime() {
        return leaseTime;
    }

    /**
     * Compare-and-delete on every node, on each node's release lane (never behind acquisition
     * rounds); each node that deleted our value takes our queue member (if we waited) off its queue
     * and wakes the first waiter queued there. Ends as soon as a majority deleted our value ({@code true}) or a majority no longer
     * held it ({@code false}); otherwise, once every node answered or timed out, {@code true} if a
     * majority answered (nodes that refused round 1 never held our value), else {@link
     * BackendUnavailableException}. A node has {@code nodeTimeout} from the moment its request is
     * sent (not from the start of the round, so a client thread scheduled late does not count
     * against the node), and the round ends at the latest after the request timeout.
     */
    @Override
    public boolean release() {
        // not after a pending renewal: one that lands after the delete finds no value of ours
        return finalRound(
                Scripts.REDLOCK_RELEASE,
                List.of(owner, quorum.keys().channel(ctx.lockName()), member(), requeue()),
                "release of lock '",
                false);
    }

    /**
     * Compare-and-{@code PEXPIRE delay} on every node, as {@link #release()} deletes: the lock then
     * runs out on the servers {@code delay} from now, also if this client dies at once. The first
     * queued waiter is woken to learn the shorter time to live, and tries when it runs out.
     */
    @Override
    public boolean releaseAfter(Duration delay) {
        long millis = Math.max(1, delay.toMillis());
        return finalRound(
                Scripts.REDLOCK_RELEASE_AFTER,
                List.of(owner, Long.toString(millis), member(), requeue()),
                "delayed release of lock '",
                true);
    }

    /** The queue member that got the lock, or {@code ""}. */
    private String member() {
        return queuedIn == null ? "" : queuedIn.member();
    }

    /** {@code "1"} if other waiters of this provider share the member: it goes to the back of the line. */
    private String requeue() {
        return queuedIn != null && queuedIn.isOpen() ? "1" : "0";
    }

    /**
     * The last request of this lock to every node ({@code script} on the lock key with {@code
     * args}), as {@link #release()} describes it; with {@code afterPending}, sent to each node only
     * after this lock's renewal or extension still pending there.
     */
    private boolean finalRound(Scripts.Script script, List<String> args, String what, boolean afterPending) {
        String name = ctx.lockName();
        List<String> keyList = quorum.releaseKeys(name);
        // no renewal or extension is sent after this; with afterPending, the last ones still pending
        // on a node go there first
        CompletableFuture<?>[] before = new CompletableFuture<?>[ttlRequests.length];
        synchronized (this) {
            ended = true;
            for (int i = 0; afterPending && i < before.length; i++) {
                before[i] = pending(i);
            }
        }
        long sentAt = ticker.read();
        Round<Long> round = Round.<Long>startDirect(
                        ticker, quorum.nodes(), quorum.size(), v -> v == 1L, (n, send, direct) -> {
                            if (round1.dropIfNotSent(n.index())) {
                                // round 1 never reached this node (it was still queued): nothing to delete
                                return CompletableFuture.completedFuture(0L);
                            }
                            CompletableFuture<List<?>> r1 = round1.future(n.index());
                            CompletableFuture<?> ttl = before[n.index()];
                            if (ttl != null) {
                                // after this lock's last renewal or extension there (round 1's too)
                                return after(
                                        CompletableFuture.allOf(r1.handle((r, e) -> null), ttl),
                                        () -> n.<Long>runRelease(script, keyList, args, send));
                            }
                            if (r1.isDone()) {
                                // from this thread if a direct connection is idle, else on the release lane
                                CompletableFuture<Long> f = new CompletableFuture<>();
                                DirectRequest<Long> d = n.sendReleaseDirect(script, keyList, args, send, f);
                                if (d == null) {
                                    return n.runRelease(script, keyList, args, send);
                                }
                                direct.accept(d);
                                return f;
                            }
                            // otherwise the request follows round 1's there
                            return r1.handle((r, e) -> null)
                                    .thenCompose(ignored -> n.<Long>runRelease(script, keyList, args, send));
                        })
                .neverDropped();
        long nodeTimeoutNanos = quorum.nodeTimeoutNanos();
        long releaseDeadline = Deadlines.after(sentAt, nodeTimeoutNanos);
        round.awaitTimed(
                ticker,
                releaseDeadline,
                nodeTimeoutNanos,
                Deadlines.after(
                        sentAt, quorum.options().timeouts().requestTimeout().toNanos()));
        int majority = quorum.size();
        if (round.yesCount() >= majority) {
            return true;
        }
        if (round.noCount() >= majority) {
            log.debug("distlock.redlock.release_not_owner lock={}", name);
            return false; // a majority no longer held our value
        }
        if (round.yesCount() + round.noCount() >= majority) {
            // a majority answered, but our value was on fewer (nodes that refused round 1, a
            // node that did not answer in time): at most a minority may still hold it, until its TTL
            log.debug("distlock.redlock.release_by_answers lock={}", name);
            return true;
        }
        throw quorum.noMajority(name, what + name + "' is unconfirmed", round, releaseDeadline);
    }
}
