package io.distlock.redlock.internal;

import static io.distlock.redlock.internal.Quorum.counter;
import static io.distlock.redlock.internal.Quorum.directOrIo;
import static io.distlock.redlock.internal.Quorum.flag;

import io.distlock.Ticker;
import io.distlock.redis.core.Owners;
import io.distlock.redis.core.Scripts;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.Deadlines;
import io.distlock.spi.HeldLock;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One acquisition attempt: its tries and its waits.
 *
 * <p>A try is round 1 ({@code REDLOCK_ACQUIRE} on every node: {@code SET lock owner NX PX lease} and,
 * where granted, the node's fencing counter raised), after a wake-up preceded by a probe of one
 * leader node; with fencing and nodes whose counters are apart, round 2 ({@code REDLOCK_RAISE}) puts
 * the token {@code t = max(counters)} on a majority. A try that fails releases what it got on every
 * node.
 *
 * <p>A wait is on the lock's release channel on every node ({@link Waiters}), bounded by the
 * holder's TTL; a jittered delay when fewer than a majority of subscriptions are confirmed or after
 * a split vote.
 */
final class RedlockContender implements Contender {
    private final RedlockDriver driver;
    private final Quorum quorum;
    private final Ticker ticker;
    private final AcquireContext ctx;
    private final String name;
    private final List<String> keyList;
    /** The lease time (ms), the scripts' TTL argument. */
    private final String leaseMillis;

    private long holderTtlNanos;
    /** Whether the last try got some votes but no majority (a split vote with other contenders). */
    private boolean splitVote;
    /** Whether the next try asks the probe leader first (after a wake-up: other waiters compete). */
    private boolean probe;

    private Waiters.Waiter waiter;

    RedlockContender(RedlockDriver driver, AcquireContext ctx) {
        this.driver = driver;
        this.quorum = driver.quorum();
        this.ticker = quorum.ticker();
        this.ctx = ctx;
        this.name = ctx.lockName();
        this.keyList = List.of(quorum.keys().lockKey(name), quorum.keys().tokenKey(name));
        this.leaseMillis = Long.toString(ctx.leaseTime().toMillis());
    }

    @Override
    public Optional<HeldLock> tryAcquire() {
        if (driver.isClosed()) {
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
        long round1Deadline = quorum.roundDeadline(sentAt, validUntil);
        Node leader = probe ? probeLeader() : null;
        probe = false;
        CompletableFuture<List<?>> leaderReply = null;
        if (leader != null) {
            // Woken with other waiters: ask one node first. Exactly one of them gets it there
            // and then asks the others; the rest learn they lost from one node, instead of all
            // of them splitting the votes of every node.
            leaderReply = leader.run(Scripts.REDLOCK_ACQUIRE, keyList, args, null);
            List<?> reply = quorum.awaitQuietly(leaderReply, round1Deadline);
            if (reply != null && flag(reply) != 1L) {
                long pttl = reply.size() > 2 ? (Long) reply.get(2) : -1;
                holderTtlNanos = pttl >= 0 ? TimeUnit.MILLISECONDS.toNanos(pttl + 1) : 0;
                return Optional.empty();
            }
            if (reply == null && !leaderReply.isDone()) {
                leader.markSuspect(); // no answer in time: the round goes on without it
            }
            round1Deadline = quorum.roundDeadline(ticker.read(), validUntil);
        }
        CompletableFuture<List<?>> probed = leaderReply;
        Round<List<?>> round1 = Round.startDirect(
                ticker,
                quorum.nodes(),
                quorum.size(),
                reply -> flag(reply) == 1L,
                (n, send, direct) ->
                        n == leader ? probed : directOrIo(n, Scripts.REDLOCK_ACQUIRE, keyList, args, send, direct));
        if (leader != null) {
            round1.markSent(leader.index());
        }
        boolean majority = round1.awaitTimed(
                ticker, round1Deadline, quorum.nodeTimeoutNanos(), quorum.roundCap(sentAt, round1Deadline, validUntil));
        if (!majority || Deadlines.passed(ticker, validUntil)) {
            return fail(round1, owner, round1Deadline);
        }
        if (!quorum.options().fencing()) {
            leave(true);
            return Optional.of(new RedlockHeldLock(driver, ctx, owner, round1, OptionalLong.empty(), validUntil));
        }
        return fence(round1, owner, validUntil);
    }

    /**
     * Round 1 incremented the counter on every node that granted it (while holding the lock there):
     * the token is the largest of those values. If a majority already has exactly that value, the
     * register's write is done and round 2 is not needed (the usual case: the nodes' counters move
     * together); otherwise round 2 raises the others to it.
     *
     * <p>What the register needs of a node is a counter of at least {@code t}, written while the
     * node holds our lock: the next holder's grant there comes later and returns more. A node whose
     * round-1 reply already shows that (the one that returned {@code t}, or one that granted after
     * round 1 was decided and whose counter, started or raised later, is above {@code t}) counts as
     * written without a request; only nodes whose round-1 counter is below {@code t} are raised.
     */
    private Optional<HeldLock> fence(Round<List<?>> round1, String owner, long validUntil) {
        long t = 0;
        int atT = 0;
        for (Node n : quorum.nodes()) {
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
        if (atT >= quorum.size()) {
            leave(true);
            return Optional.of(new RedlockHeldLock(driver, ctx, owner, round1, OptionalLong.of(t), validUntil));
        }
        long token = t;
        List<String> raiseArgs = List.of(owner, Long.toString(token));
        long round2Start = ticker.read();
        long round2Deadline = quorum.roundDeadline(round2Start, validUntil);
        Round<Long> round2 =
                Round.startDirect(ticker, quorum.nodes(), quorum.size(), v -> v == 1L, (n, send, direct) -> {
                    CompletableFuture<List<?>> r1 = round1.future(n.index());
                    if (r1.isDone() && !r1.isCompletedExceptionally()) {
                        // round 1 answered here (as it usually has): raise from this thread at once
                        List<?> reply = r1.join();
                        return grantedAtLeast(reply, token)
                                ? CompletableFuture.completedFuture(1L) // at or above t already
                                : flag(reply) == 1L
                                        ? directOrIo(n, Scripts.REDLOCK_RAISE, keyList, raiseArgs, send, direct)
                                        : CompletableFuture.completedFuture(0L); // refused round 1
                    }
                    // still pending (or failed): raise once (if) it granted, through the I/O threads
                    return r1.thenCompose(reply -> grantedAtLeast(reply, token)
                            ? CompletableFuture.completedFuture(1L)
                            : flag(reply) == 1L
                                    ? n.<Long>run(Scripts.REDLOCK_RAISE, keyList, raiseArgs, send)
                                    : CompletableFuture.completedFuture(0L));
                });
        boolean raised = round2.awaitTimed(
                ticker,
                round2Deadline,
                quorum.nodeTimeoutNanos(),
                quorum.roundCap(round2Start, round2Deadline, validUntil));
        if (!raised || Deadlines.passed(ticker, validUntil)) {
            quorum.releaseEverywhere(round1, name, owner);
            if (!raised
                    && round2.yesCount() + round2.unansweredCount() >= quorum.size()
                    && !Deadlines.passed(ticker, validUntil)) {
                throw quorum.noMajority(
                        name, "fencing round for lock '" + name + "' did not reach a majority", round2, round2Deadline);
            }
            holderTtlNanos = 0;
            return Optional.empty();
        }
        leave(true);
        return Optional.of(new RedlockHeldLock(driver, ctx, owner, round1, OptionalLong.of(t), validUntil));
    }

    /** Whether a round-1 reply granted the lock with a counter of at least {@code t}. */
    private static boolean grantedAtLeast(List<?> reply, long t) {
        return flag(reply) == 1L && counter(reply) >= t;
    }

    /**
     * The node asked first after a wake-up: the same for every client of the lock (chosen by the
     * name's hash), unless it failed recently; then the next fit one.
     */
    private Node probeLeader() {
        List<Node> nodes = quorum.nodes();
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
        quorum.releaseEverywhere(round1, name, owner);
        if (quorum.nodes().size() - round1.unansweredCount() < quorum.size()) {
            throw quorum.noMajority(name, "cannot acquire lock '" + name + "'", round1, round1Deadline);
        }
        splitVote = round1.yesCount() > 0;
        long ttl = Long.MAX_VALUE;
        for (Node n : quorum.nodes()) {
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
     * refusing node reported for the holder's key. The first wait only subscribes and returns once
     * a majority of nodes confirmed, so a release between the try and the subscription is not missed
     * (a release publishes on a majority, which meets the confirmed majority). Falls back to a
     * jittered delay while fewer than a majority of subscriptions are confirmed or when no node
     * reported a TTL; after a split vote, a short random delay.
     */
    @Override
    public void awaitChange(long deadlineNanos) throws InterruptedException {
        if (driver.isClosed()) {
            return;
        }
        long now = ticker.read();
        long maxRetryDelay = quorum.options().maxRetryDelay().toNanos();
        if (splitVote) {
            // Contenders woken by the same release split the votes and all released again: the
            // lock is probably free, but retrying in step would split again. A short random
            // delay (the Redlock specification's), then a probe of the leader node first.
            long jitter = ThreadLocalRandom.current().nextLong(maxRetryDelay / 4 + 1);
            driver.sleepUntil(Math.min(deadlineNanos, Deadlines.after(now, jitter)), now);
            probe = true;
            return;
        }
        if (waiter == null) {
            waiter = driver.waiters().join(quorum.keys().channel(name));
            long confirmBy = Math.min(
                    deadlineNanos,
                    Deadlines.after(
                            now,
                            quorum.nodeTimeoutNanos()
                                    + quorum.options()
                                            .timeouts()
                                            .connectTimeout()
                                            .toNanos()));
            waiter.group().awaitConfirmed(quorum.size(), confirmBy);
            probe = true;
            return;
        }
        if (holderTtlNanos > 0 && waiter.group().confirmedCount() >= quorum.size()) {
            Waiters.Wake wake = waiter.await(Math.min(deadlineNanos, Deadlines.after(now, holderTtlNanos)));
            // after a release others compete: probe first; after the holder's TTL, a full round
            probe = wake == Waiters.Wake.RELEASE || wake == Waiters.Wake.MAYBE_MISSED;
            return;
        }
        long wait = ThreadLocalRandom.current().nextLong(maxRetryDelay / 4, maxRetryDelay + 1);
        if (holderTtlNanos > 0) {
            wait = Math.min(wait, holderTtlNanos);
        }
        driver.sleepUntil(Math.min(deadlineNanos, Deadlines.after(now, wait)), now);
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
