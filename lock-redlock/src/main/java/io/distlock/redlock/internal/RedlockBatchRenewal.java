package io.distlock.redlock.internal;

import io.distlock.redis.core.PackedRenewals;
import io.distlock.redis.core.RedisKeys;
import io.distlock.redis.core.ScriptRunner;
import io.distlock.redis.core.Scripts;
import io.distlock.spi.BatchRenewal;
import io.distlock.spi.Deadlines;
import io.distlock.spi.HeldLock;
import io.distlock.spi.RenewalOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Renews the locks of one renewal tick with one round trip per node: {@link Scripts#RENEW_PACKED},
 * up to {@link PackedRenewals#MAX_LOCKS} locks per call packed into one argument (so that a node
 * reads the request in one or two socket reads whatever the number of locks), compare-and-{@code
 * PEXPIRE} of each lock with its owner value and lease time, all calls to a node in one pipeline on
 * its I/O threads, every node at once. Each lock is then judged as {@link RedlockHeldLock#renew()}
 * judges it: renewed if a majority of nodes extended it before its validity ran out, with the new
 * validity counted from a ticker reading taken before the round (minus the drift); gone if a
 * majority no longer holds its owner value; otherwise unknown (a failure naming what the nodes said
 * about this lock), retried at the next tick until the validity runs out. A node that fails counts
 * for no lock, so one node down leaves the others' renewals to the remaining majority.
 *
 * <p>A node has the node timeout per {@value #LOCKS_PER_NODE_TIMEOUT} locks of the batch (a node's
 * work grows with them). The round ends as soon as a majority of nodes renewed every lock (the
 * usual case). Otherwise some lock's outcome needs the other nodes' replies (a lock held on a bare
 * majority needs every one of its nodes): the round then waits for every node's reply for up to
 * half a renewal interval (never past the request timeout nor the latest validity of the batch's
 * locks), since a reply that arrives after the node timeout but before a lock's validity ran out
 * still renews it under the validity rule; a loaded node that needs a little longer than the node
 * timeout for a large batch so does not cost the locks that it and one other node hold. A single due lock is renewed with its own round ({@link
 * HeldLock#renew()}, written on the direct connections), as without batching. A lock's extension
 * or delayed release made while the batch's request to a node is pending goes there after it
 * ({@link RedlockHeldLock#joinBatch}).
 */
final class RedlockBatchRenewal implements BatchRenewal {
    /** A node has the node timeout for each this many locks of a batch. */
    static final int LOCKS_PER_NODE_TIMEOUT = 1_000;

    private static final String WHAT = "cannot renew lock '";

    private final Quorum quorum;
    /** The longest a batch waits for late replies: half the provider's renewal interval. */
    private final long lateRepliesNanos;

    RedlockBatchRenewal(Quorum quorum, long renewalIntervalNanos) {
        this.quorum = quorum;
        this.lateRepliesNanos = Math.max(1, renewalIntervalNanos / 2);
    }

    @Override
    public List<RenewalOutcome> renewAll(List<HeldLock> due) {
        if (due.size() == 1) {
            return ONE_BY_ONE.renewAll(due);
        }
        RenewalOutcome[] outcomes = new RenewalOutcome[due.size()];
        int nodes = quorum.nodes().size();
        CompletableFuture<?>[] sent = new CompletableFuture<?>[nodes];
        for (int n = 0; n < nodes; n++) {
            sent[n] = new CompletableFuture<Void>();
        }
        List<RedlockHeldLock> live = new ArrayList<>(due.size());
        List<Integer> at = new ArrayList<>(due.size());
        for (int i = 0; i < due.size(); i++) {
            RedlockHeldLock l = (RedlockHeldLock) due.get(i);
            if (l.joinBatch(sent)) {
                live.add(l);
                at.add(i);
            } else {
                outcomes[i] = RenewalOutcome.GONE; // released or left to run out meanwhile
            }
        }
        if (live.isEmpty()) {
            completeAll(sent);
        } else {
            List<RenewalOutcome> renewed;
            try {
                renewed = renew(live, sent);
            } catch (RuntimeException | Error e) {
                completeAll(sent); // unexpected: nothing may wait on this batch for ever
                throw e;
            }
            for (int k = 0; k < live.size(); k++) {
                outcomes[at.get(k)] = renewed.get(k);
            }
        }
        return Arrays.asList(outcomes);
    }

    private static void completeAll(CompletableFuture<?>[] gates) {
        for (CompletableFuture<?> f : gates) {
            f.complete(null);
        }
    }

    /**
     * One round of {@code RENEW_PACKED} pipelines to every node for {@code locks}; their outcomes.
     * {@code sent[n]} completes when node {@code n}'s request is answered, failed or dropped.
     */
    private List<RenewalOutcome> renew(List<RedlockHeldLock> locks, CompletableFuture<?>[] sent) {
        List<ScriptRunner.Call> calls = new ArrayList<>();
        List<Duration> leaseTimes = new ArrayList<>(locks.size());
        long lastValid = locks.get(0).validUntilNanos();
        PackedRenewals call = null;
        for (RedlockHeldLock l : locks) {
            if (call == null || call.isFull()) {
                if (call != null) {
                    calls.add(call.call());
                }
                call = new PackedRenewals(quorum.keys(), Math.min(locks.size(), PackedRenewals.MAX_LOCKS));
            }
            Duration leaseTime = l.leaseTime();
            leaseTimes.add(leaseTime);
            call.add(RedisKeys.tag(l.lockName()), l.owner(), leaseTime.toMillis());
            if (l.validUntilNanos() - lastValid > 0) {
                lastValid = l.validUntilNanos();
            }
        }
        calls.add(call.call());
        // a node's work grows with the number of locks: it has the node timeout per thousand
        long nodeTimeout =
                quorum.nodeTimeoutNanos() * ((locks.size() + LOCKS_PER_NODE_TIMEOUT - 1) / LOCKS_PER_NODE_TIMEOUT);
        long sentAt = quorum.ticker().read();
        long deadline = quorum.roundDeadline(sentAt, lastValid, nodeTimeout);
        long cap = quorum.roundCap(sentAt, deadline, lastValid);
        Round<List<ScriptRunner.Outcome>> round = Round.startDirect(
                quorum.ticker(),
                quorum.nodes(),
                quorum.size(),
                answer -> renewedAll(answer, locks.size()),
                (node, send, direct) -> node.runAll(Scripts.RENEW_PACKED, calls, send));
        for (Node n : quorum.nodes()) {
            @SuppressWarnings("unchecked")
            CompletableFuture<Object> s = (CompletableFuture<Object>) sent[n.index()];
            round.future(n.index()).whenComplete((v, e) -> s.complete(null));
        }
        boolean allRenewed = round.awaitTimed(quorum.ticker(), deadline, nodeTimeout, cap);
        if (!allRenewed) {
            // some lock lacks a majority of renewals: its outcome needs every node's reply, and a
            // reply that comes before the validity ran out still counts; the next tick's batch
            // waits meanwhile, so not longer than half an interval
            long late = Math.min(cap, Deadlines.after(sentAt, Math.max(nodeTimeout, lateRepliesNanos)));
            for (Node n : quorum.nodes()) {
                quorum.awaitQuietly(round.future(n.index()), late);
            }
        }
        int nodes = quorum.nodes().size();
        int majority = quorum.size();
        String[] answers = new String[nodes];
        for (Node n : quorum.nodes()) {
            answers[n.index()] = answers(round.answer(n.index()), locks.size());
        }
        List<RenewalOutcome> outcomes = new ArrayList<>(locks.size());
        for (int k = 0; k < locks.size(); k++) {
            int yes = 0;
            int no = 0;
            for (String a : answers) {
                if (a != null) {
                    if (a.charAt(k) == '1') {
                        yes++;
                    } else {
                        no++;
                    }
                }
            }
            RedlockHeldLock l = locks.get(k);
            if (yes >= majority && !Deadlines.passed(quorum.ticker(), l.validUntilNanos())) {
                l.renewed(sentAt, leaseTimes.get(k));
                outcomes.add(RenewalOutcome.RENEWED);
            } else if (no > nodes - majority) {
                outcomes.add(RenewalOutcome.GONE); // a majority no longer holds our value
            } else if (yes >= majority) {
                outcomes.add(RenewalOutcome.failed(l.renewedTooLate(WHAT)));
            } else {
                String tally = RoundReport.tally(
                        nodes, yes, no, nodes - yes - no, TimeUnit.NANOSECONDS.toMillis(nodeTimeout), majority);
                outcomes.add(RenewalOutcome.failed(
                        quorum.noMajority(l.lockName(), WHAT + l.lockName() + "'", round, cap, tally)));
            }
        }
        return outcomes;
    }

    /** Whether a node's replies renewed every one of the batch's {@code locks}. */
    private static boolean renewedAll(List<ScriptRunner.Outcome> answer, int locks) {
        String a = answers(answer, locks);
        return a != null && a.indexOf('0') < 0;
    }

    /**
     * A node's answers for the batch's {@code locks}, one character each ({@code '1'} renewed), all
     * calls in order; null if the node did not answer or its replies do not fit the batch.
     */
    private static String answers(List<ScriptRunner.Outcome> answer, int locks) {
        if (answer == null) {
            return null;
        }
        StringBuilder all = new StringBuilder(locks);
        try {
            for (int c = 0; c < answer.size(); c++) {
                int size = Math.min(PackedRenewals.MAX_LOCKS, locks - c * PackedRenewals.MAX_LOCKS);
                all.append(PackedRenewals.answers(answer.get(c).value(), size));
            }
        } catch (IllegalStateException malformed) {
            return null;
        }
        return all.length() == locks ? all.toString() : null;
    }
}
