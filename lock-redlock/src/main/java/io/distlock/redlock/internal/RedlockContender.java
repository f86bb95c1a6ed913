package io.distlock.redlock.internal;

import static io.distlock.redlock.internal.Quorum.counter;
import static io.distlock.redlock.internal.Quorum.directOrIo;
import static io.distlock.redlock.internal.Quorum.flag;

import io.distlock.Ticker;
import io.distlock.redis.core.Owners;
import io.distlock.redis.core.RedisKeys;
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
 * where granted, the node's fencing counter raised); with fencing and nodes whose counters are
 * apart, round 2 ({@code REDLOCK_RAISE}) puts the token {@code t = max(counters)} on a majority. A
 * try that fails releases what it got on every node. Once the attempt waits, its tries are {@code
 * REDLOCK_ACQUIRE_QUEUED}: the same grant, and where refused the provider's member for this lock is
 * queued, so that a release wakes this provider when it is first in line. After a split vote, or
 * an event that woke every waiter (a subscription re-established), the next try asks one leader
 * node first.
 *
 * <p>A wait is for a wake message on the provider's wake channel of the lock on every node ({@link
 * Waiters}), bounded by the holder's TTL; a jittered delay when fewer than a majority of
 * subscriptions are confirmed or after a split vote.
 */
final class RedlockContender implements Contender {
    private final RedlockDriver driver;
    private final Quorum quorum;
    private final Ticker ticker;
    private final AcquireContext ctx;
    private final String name;
    private final List<String> keyList;
    /** The keys of {@code REDLOCK_ACQUIRE_QUEUED}: lock, counter, queue, waiters. */
    private final List<String> queuedKeys;
    /** The lease time (ms), the scripts' TTL argument. */
    private final String leaseMillis;

    private long holderTtlNanos;
    /** Whether the last try got some votes but no majority (a split vote with other contenders). */
    private boolean splitVote;
    /**
     * Whether the next try asks the probe leader first (after a split vote, or an event that woke
     * every waiter: others compete).
     */
    private boolean probe;
    /** The attempt's deadline, as the engine last gave it to {@link #awaitChange}. */
    private long waitDeadline = Deadlines.NEVER;

    private Waiters.Waiter waiter;

    RedlockContender(RedlockDriver driver, AcquireContext ctx) {
        this.driver = driver;
        this.quorum = driver.quorum();
        this.ticker = quorum.ticker();
        this.ctx = ctx;
        this.name = ctx.lockName();
        RedisKeys keys = quorum.keys();
        String tag = RedisKeys.tag(name);
        this.keyList = List.of(keys.lockKeyOfTag(tag), keys.tokenKeyOfTag(tag));
        this.queuedKeys = List.of(keyList.get(0), keyList.get(1), keys.queueKeyOfTag(tag), keys.waitersKeyOfTag(tag));
        this.leaseMillis = Long.toString(ctx.leaseTime().toMillis());
    }

    @Override
    public Optional<HeldLock> tryAcquire() {
        if (driver.isClosed()) {
            throw new IllegalStateException("provider is closed (lock '" + name + "', backend redlock)");
        }
        Waiters.Waiter w = waiter;
        splitVote = false;
        String owner = Owners.newOwner();
        long sentAt = ticker.read();
        long validUntil = ctx.validUntil(sentAt);
        Scripts.Script acquire;
        List<String> keys;
        List<String> args;
        if (w == null) {
            acquire = Scripts.REDLOCK_ACQUIRE;
            keys = keyList;
            args = List.of(owner, leaseMillis);
        } else {
            // waiting: the provider's member is queued where the lock is refused
            w.beginTry();
            w.queueing();
            acquire = Scripts.REDLOCK_ACQUIRE_QUEUED;
            keys = queuedKeys;
            args = List.of(
                    owner,
                    leaseMillis,
                    w.group().member(),
                    Long.toString(registerMillis(sentAt)),
                    w.group().channel());
        }
        long round1Deadline = quorum.roundDeadline(sentAt, validUntil);
        Node leader = probe ? probeLeader() : null;
        probe = false;
        CompletableFuture<List<?>> leaderReply = null;
        if (leader != null) {
            // After a split vote with other contenders: ask one node first. Exactly one of them
            // gets it there and then asks the others; the rest learn they lost from one node,
            // instead of all of them splitting the votes of every node again.
            leaderReply = leader.run(acquire, keys, args, null);
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
                (n, send, direct) -> n == leader ? probed : directOrIo(n, acquire, keys, args, send, direct));
        if (leader != null) {
            round1.markSent(leader.index());
        }
        boolean majority = round1.awaitTimed(
                ticker, round1Deadline, quorum.nodeTimeoutNanos(), quorum.roundCap(sentAt, round1Deadline, validUntil));
        if (!majority || Deadlines.passed(ticker, validUntil)) {
            return fail(round1, owner, round1Deadline);
        }
        if (!quorum.options().fencing()) {
            return won(owner, round1, OptionalLong.empty(), validUntil);
        }
        return fence(round1, owner, validUntil);
    }

    /**
     * How long a queue entry of this try stays live (ms): until the attempt's deadline, at most a
     * day (every later try renews it).
     */
    private long registerMillis(long now) {
        if (waitDeadline == Deadlines.NEVER) {
            return MAX_REGISTER_MILLIS;
        }
        return Math.max(1, Math.min(MAX_REGISTER_MILLIS, TimeUnit.NANOSECONDS.toMillis(waitDeadline - now) + 1));
    }

    /** Longest queue entry a waiter asks for. */
    private static final long MAX_REGISTER_MILLIS = TimeUnit.DAYS.toMillis(1);

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
            return won(owner, round1, OptionalLong.of(t), validUntil);
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
        return won(owner, round1, OptionalLong.of(t), validUntil);
    }

    /**
     * The lock is held: a waiting attempt's provider member stays first in line until the holder's
     * release takes it off the queue.
     */
    private Optional<HeldLock> won(String owner, Round<List<?>> round1, OptionalLong token, long validUntil) {
        Waiters.Group queuedIn = waiter == null ? null : waiter.group();
        leave(true);
        return Optional.of(new RedlockHeldLock(driver, ctx, owner, round1, token, validUntil, queuedIn));
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
     * Waits for a wake message of the lock from any node (the provider's {@link Waiters}: its wake
     * channel subscribed on every node, one waiter woken per message), bounded by the shortest TTL a
     * refusing node reported for the holder's key. The first wait only subscribes and returns once
     * a majority of nodes confirmed; the next try then queues the provider where it is refused, so
     * a release after that try wakes it (or the provider ahead of it), and one before it left the
     * lock free there. Falls back to a jittered delay while fewer than a majority of subscriptions
     * are confirmed or when no node reported a TTL; after a split vote, a short random delay.
     */
    @Override
    public void awaitChange(long deadlineNanos) throws InterruptedException {
        if (driver.isClosed()) {
            return;
        }
        long now = ticker.read();
        waitDeadline = deadlineNanos;
        long maxRetryDelay = quorum.options().maxRetryDelay().toNanos();
        if (splitVote && waiter != null) {
            // Some nodes granted, no majority: other contenders hold the rest, or (after a wake
            // message) the release that woke us has not reached every node yet. A short random
            // delay (the Redlock specification's), ended at once by a wake message (the rest of that
            // release); then a full round if a message came, else a probe of the leader first, so
            // that contenders retrying together do not split the votes again. A first try that split
            // the votes subscribes below instead, and then queues: most often it only met another
            // client's round 1 still on its way to some nodes.
            long until = Math.min(
                    deadlineNanos,
                    Deadlines.after(now, ThreadLocalRandom.current().nextLong(maxRetryDelay / 4 + 1)));
            probe = waiter.await(until) != Waiters.Wake.RELEASE;
            return;
        }
        if (waiter == null) {
            // subscribe the wake channel, then try once more at once: that try queues the member,
            // and finds the lock free where a release came before it
            waiter = driver.waiters().join(name);
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
            return;
        }
        if (holderTtlNanos > 0 && waiter.group().confirmedCount() >= quorum.size()) {
            Waiters.Wake wake = waiter.await(Math.min(deadlineNanos, Deadlines.after(now, holderTtlNanos)));
            // A release wakes one waiter of the first provider in line: a full round. An event
            // that may have hidden a release (a subscription confirmed or re-established) wakes
            // every waiter of the provider, and those of other providers too: probe first.
            probe = wake == Waiters.Wake.MAYBE_MISSED;
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
