package io.distlock.redlock.internal;

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
import java.util.concurrent.TimeUnit;

/**
 * Renews the locks of one renewal tick with one round trip per node: {@link Scripts#RENEW_MANY}
 * over up to {@value #CHUNK} keys per call (compare-and-{@code PEXPIRE} of each key, with its owner
 * value and lease time), all calls to a node in one pipeline on its I/O threads, every node at once.
 * Each lock is then judged as {@link RedlockHeldLock#renew()} judges it: renewed if a majority of
 * nodes extended it before its validity ran out, with the new validity counted from a ticker reading
 * taken before the round (minus the drift); gone if a majority no longer holds its owner value;
 * otherwise unknown (a failure naming what the nodes said about this lock), retried at the next tick
 * until the validity runs out. A node that fails or does not answer in time counts for no lock, so
 * one node down leaves the others' renewals to the remaining majority.
 *
 * <p>A node has the node timeout for each {@value #CHUNK}-key call of its pipeline (so ten times
 * the node timeout for 10,000 locks), never past the request timeout nor the latest validity of the
 * batch's locks. The round ends as soon as a majority of nodes renewed every lock (the usual case);
 * otherwise it waits for every node's reply up to that time, as a lock's outcome needs them all. A single
 * due lock is renewed with its own round ({@link HeldLock#renew()}, written on the direct
 * connections), as without batching.
 */
final class RedlockBatchRenewal implements BatchRenewal {
    /** Most keys per script call: a call blocks the node for a few µs per key. */
    static final int CHUNK = 1_000;

    private static final String WHAT = "cannot renew lock '";

    private final Quorum quorum;

    RedlockBatchRenewal(Quorum quorum) {
        this.quorum = quorum;
    }

    @Override
    public List<RenewalOutcome> renewAll(List<HeldLock> due) {
        if (due.size() == 1) {
            return ONE_BY_ONE.renewAll(due);
        }
        RenewalOutcome[] outcomes = new RenewalOutcome[due.size()];
        List<RedlockHeldLock> live = new ArrayList<>(due.size());
        List<Integer> at = new ArrayList<>(due.size());
        for (int i = 0; i < due.size(); i++) {
            RedlockHeldLock l = (RedlockHeldLock) due.get(i);
            if (l.ended()) {
                outcomes[i] = RenewalOutcome.GONE; // released or left to run out meanwhile
            } else {
                live.add(l);
                at.add(i);
            }
        }
        if (!live.isEmpty()) {
            List<RenewalOutcome> renewed = renew(live);
            for (int k = 0; k < live.size(); k++) {
                outcomes[at.get(k)] = renewed.get(k);
            }
        }
        return Arrays.asList(outcomes);
    }

    /** One round of {@code RENEW_MANY} pipelines to every node for {@code locks}; their outcomes. */
    private List<RenewalOutcome> renew(List<RedlockHeldLock> locks) {
        List<ScriptRunner.Call> calls = new ArrayList<>((locks.size() + CHUNK - 1) / CHUNK);
        List<Duration> leaseTimes = new ArrayList<>(locks.size());
        long lastValid = locks.get(0).validUntilNanos();
        for (int from = 0; from < locks.size(); from += CHUNK) {
            List<RedlockHeldLock> chunk = locks.subList(from, Math.min(locks.size(), from + CHUNK));
            List<String> keys = new ArrayList<>(chunk.size());
            List<String> args = new ArrayList<>(2 * chunk.size());
            for (RedlockHeldLock l : chunk) {
                Duration leaseTime = l.leaseTime();
                leaseTimes.add(leaseTime);
                keys.add(quorum.keys().lockKey(l.lockName()));
                args.add(l.owner());
                args.add(Long.toString(leaseTime.toMillis()));
                if (l.validUntilNanos() - lastValid > 0) {
                    lastValid = l.validUntilNanos();
                }
            }
            calls.add(new ScriptRunner.Call(keys, args));
        }
        // a node's work grows with the number of locks: it has the node timeout per call
        long nodeTimeout = quorum.nodeTimeoutNanos() * calls.size();
        long sentAt = quorum.ticker().read();
        long deadline = quorum.roundDeadline(sentAt, lastValid, nodeTimeout);
        Round<List<ScriptRunner.Outcome>> round = Round.startDirect(
                quorum.ticker(),
                quorum.nodes(),
                quorum.size(),
                RedlockBatchRenewal::renewedAll,
                (node, send, direct) -> node.runAll(Scripts.RENEW_MANY, calls, send));
        boolean allRenewed =
                round.awaitTimed(quorum.ticker(), deadline, nodeTimeout, quorum.roundCap(sentAt, deadline, lastValid));
        if (!allRenewed) {
            // some lock lacks a majority of renewals: its outcome needs every node's reply
            for (Node n : quorum.nodes()) {
                quorum.awaitQuietly(round.future(n.index()), deadline);
            }
        }
        int nodes = quorum.nodes().size();
        int majority = quorum.size();
        List<RenewalOutcome> outcomes = new ArrayList<>(locks.size());
        for (int k = 0; k < locks.size(); k++) {
            int yes = 0;
            int no = 0;
            for (Node n : quorum.nodes()) {
                List<ScriptRunner.Outcome> answer = round.answer(n.index());
                if (answer != null) {
                    if (reply(answer, k) == 1L) {
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
                        quorum.noMajority(l.lockName(), WHAT + l.lockName() + "'", round, deadline, tally)));
            }
        }
        return outcomes;
    }

    /** Whether a node's replies renewed every lock (the round's yes). */
    private static boolean renewedAll(List<ScriptRunner.Outcome> answer) {
        for (ScriptRunner.Outcome o : answer) {
            for (Object r : (List<?>) o.value()) {
                if (!Long.valueOf(1L).equals(r)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The {@code k}-th lock's reply (1 renewed, 0 not) in a node's replies, chunk after chunk. */
    private static long reply(List<ScriptRunner.Outcome> answer, int k) {
        List<?> chunk = (List<?>) answer.get(k / CHUNK).value();
        return (Long) chunk.get(k % CHUNK);
    }
}
