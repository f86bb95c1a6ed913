package io.distlock.compare;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** What every scenario runner needs: lock names, clients, threads, failed measurements. */
final class ScenarioSupport {
    /**
     * Longest warm-up per target and scenario: {@link ComparisonSettings#warmup()} iterations or
     * this long, whichever ends first (slow backends reach their steady state in fewer iterations,
     * and their figures are large against the JIT's share).
     */
    static final long WARMUP_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(3);

    private ScenarioSupport() {}

    /** A lock name no earlier scenario used. */
    static String lockName(String scenario) {
        return "compare-" + scenario + "-" + Long.toHexString(System.nanoTime());
    }

    /** The measurement of a scenario that failed with {@code e}. */
    static Measurement failed(ComparisonTarget t, Scenario s, Throwable e) {
        return new Measurement(t.name(), s, Map.of(), null, "failed: " + e);
    }

    /** {@code n} new clients of {@code target}; none stays open if one cannot be opened. */
    static List<LockClient> open(ComparisonTarget target, int n) {
        List<LockClient> clients = new ArrayList<>(n);
        try {
            for (int i = 0; i < n; i++) {
                clients.add(target.clients().get());
            }
            return clients;
        } catch (RuntimeException e) {
            closeAll(clients);
            throw e;
        }
    }

    static void closeAll(List<LockClient> clients) {
        for (LockClient c : clients) {
            try {
                c.close();
            } catch (RuntimeException ignored) {
                // best effort
            }
        }
    }

    /** Joins every thread within {@code max} in all. */
    static void joinAll(List<Thread> threads, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        for (Thread t : threads) {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                TimeUnit.NANOSECONDS.timedJoin(t, left);
            }
            if (t.isAlive()) {
                throw new IllegalStateException("scenario thread " + t.getName() + " did not finish in " + max);
            }
        }
    }
}
