package io.distlock.tck;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockProvider;
import io.distlock.tck.history.HistoryChecker;
import io.distlock.tck.history.HistoryEvent;
import io.distlock.tck.history.HistoryRecorder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The rules of SPEC.md section 5, "Mutual exclusion under concurrency": threads and independent
 * clients hammering one lock never hold it together (a lost-update counter and the history
 * checker).
 *
 * <p>Part of {@link LockProviderTck}, which implements every rule group; see {@link RuleGroup}.
 */
public interface MutualExclusionRules extends RuleGroup {
    /**
     * TCK-5.1: threads of one client hammering one lock never overlap: a non-atomic
     * read-modify-write of a shared counter loses no update, and the recorded history has no two
     * overlapping valid holders and increasing tokens.
     *
     * No attempt may time out: each waits at most 5 s while every hold lasts microseconds, so an
     * attempt that runs out missed a release.
     *
     * <p>If this fails, check that each acquisition uses its own owner value (not one per client),
     * and that the driver is thread-safe; for a timed-out attempt, the wait path (a release between
     * a failed try and the wait must wake the waiter, TCK-2.5).
     */
    @Test
    @DisplayName("TCK-5.1 threads of one client never hold the lock together")
    default void tck_5_1_threadsOfOneClient_hammerOneLock_neverOverlap() throws Exception {
        TckSupport tck = support();
        LockProvider a = tck.client();
        hammer("TCK-5.1", List.of(a), 4, 25);
    }

    /**
     * TCK-5.2: independent clients (several threads each) hammering one lock never overlap (same
     * checks as TCK-5.1).
     *
     * <p>If this fails, check the atomicity of the try-create primitive on the server, and the
     * fencing counter if the history shows tokens out of order.
     */
    @Test
    @DisplayName("TCK-5.2 independent clients never hold the lock together")
    default void tck_5_2_independentClients_hammerOneLock_neverOverlap() throws Exception {
        TckSupport tck = support();
        hammer("TCK-5.2", List.of(tck.client(), tck.client(), tck.client()), 2, 15);
    }

    /**
     * {@code threadsPerClient} threads on each of {@code providers} acquire one lock {@code iterations}
     * times each (for at most 10 s), each doing a non-atomic read-modify-write of a shared counter;
     * fails unless no update was lost, every thread made progress and the history checks out.
     */
    private void hammer(String rule, List<LockProvider> providers, int threadsPerClient, int iterations)
            throws Exception {
        TckSupport tck = support();
        String name = tck.name("mutex");
        HistoryRecorder history = new HistoryRecorder();
        AtomicLong counter = new AtomicLong();
        AtomicInteger acquisitions = new AtomicInteger();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        long stopAt = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        Duration attemptWait = Duration.ofSeconds(5); // every hold lasts microseconds: none may run out
        List<Background<Integer>> workers = new ArrayList<>();
        for (int c = 0; c < providers.size(); c++) {
            LockProvider p = providers.get(c);
            for (int t = 0; t < threadsPerClient; t++) {
                String id = "client" + c + "-thread" + t;
                workers.add(tck.background(id, () -> {
                    int mine = 0;
                    DistributedLock lock = p.lock(name);
                    for (int i = 0; i < iterations && System.nanoTime() - stopAt < 0; i++) {
                        Optional<Lease> l = lock.tryAcquire(attemptWait);
                        if (l.isEmpty()) {
                            errors.add(new AssertionError(rule + ": tryAcquire(" + attemptWait + ") by " + id
                                    + " timed out although every hold lasts microseconds (a lost wake-up: a"
                                    + " release the waiter did not notice)"));
                            continue;
                        }
                        Lease lease = l.get();
                        HistoryRecorder.Hold hold = history.acquired(id, lease);
                        try {
                            long v = counter.get();
                            for (int spin = 0; spin < 50; spin++) {
                                Thread.onSpinWait();
                            }
                            Thread.yield();
                            counter.set(v + 1);
                            acquisitions.incrementAndGet();
                            mine++;
                            hold.valid(lease);
                        } finally {
                            hold.released();
                            if (!lease.release()) {
                                errors.add(new AssertionError(rule + ": release() of " + lease + " by " + id
                                        + " returned false (lease lost during a short hold)"));
                            }
                        }
                    }
                    return mine;
                }));
            }
        }
        List<Integer> perThread = new ArrayList<>();
        for (Background<Integer> w : workers) {
            try {
                perThread.add(w.get(Duration.ofSeconds(60)));
            } catch (Exception e) {
                errors.add(e);
            }
        }
        if (!errors.isEmpty()) {
            AssertionError e =
                    new AssertionError(rule + ": " + errors.size() + " worker error(s); first: " + errors.peek());
            errors.forEach(e::addSuppressed);
            throw e;
        }
        HistoryChecker.Result result = tck.checker().check(history.events());
        assertThat(result.ok()).as("%s: history check: %s", rule, result).isTrue();
        assertThat(counter.get())
                .as(
                        "%s: lost updates: the shared counter is %d after %d acquisitions (two holders overlapped)",
                        rule, counter.get(), acquisitions.get())
                .isEqualTo(acquisitions.get());
        assertThat(perThread)
                .as("%s: every thread acquired at least once (acquisitions per thread)", rule)
                .allMatch(n -> n > 0);
        long released = history.events().stream()
                .filter(e -> e.type() == HistoryEvent.Type.RELEASED)
                .count();
        assertThat(released).isEqualTo(acquisitions.get());
    }
}
