package io.distlock.compare;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The points of the scale curves: how a target behaves as the work grows. Each point is a short,
 * bounded measurement with fresh clients.
 *
 * <ul>
 *   <li>{@code clients}: contending clients on one lock, each point contending for {@code
 *       contendedDuration} ({@link Scenario#CONTENDED}: throughput, p99 wait, fairness);
 *   <li>{@code heldLocks}: distinct locks one client holds at once, for {@code hold} ({@link
 *       Scenario#RENEWAL}: renewal requests per second counted by the server, the client's heap after
 *       a GC, the connections to the server);
 *   <li>{@code waiters}: clients waiting on one lock ({@link Scenario#HANDOFF_MANY}: hand-off p50,
 *       connections), spread over at most {@code maxWaiterClients} clients (the waiters beyond are
 *       threads of those clients, as application instances with several threads waiting).
 * </ul>
 *
 * @param clients contending clients per point, ascending
 * @param heldLocks held locks per point, ascending
 * @param waiters waiters per point, ascending
 * @param contendedDuration how long each clients point contends (after a quarter of it unmeasured)
 * @param hold how long each held-locks point holds its locks (the server's requests are counted after
 *     the first fifth of it): longer than the targets' renewal interval, to see their renewals
 * @param maxWaiterClients the most clients a waiters point opens
 */
public record ScalePoints(
        List<Integer> clients,
        List<Integer> heldLocks,
        List<Integer> waiters,
        Duration contendedDuration,
        Duration hold,
        int maxWaiterClients) {

    /** No scale curves. */
    public static final ScalePoints NONE =
            new ScalePoints(List.of(), List.of(), List.of(), Duration.ofSeconds(1), Duration.ofSeconds(1), 1);

    public ScalePoints {
        clients = checked("clients", clients);
        heldLocks = checked("heldLocks", heldLocks);
        waiters = checked("waiters", waiters);
        Objects.requireNonNull(contendedDuration, "contendedDuration must not be null");
        if (contendedDuration.isNegative() || contendedDuration.isZero()) {
            throw new IllegalArgumentException("contendedDuration must be positive (was " + contendedDuration + ")");
        }
        Objects.requireNonNull(hold, "hold must not be null");
        if (hold.isNegative() || hold.isZero()) {
            throw new IllegalArgumentException("hold must be positive (was " + hold + ")");
        }
        if (maxWaiterClients < 1) {
            throw new IllegalArgumentException("maxWaiterClients must be positive (was " + maxWaiterClients + ")");
        }
    }

    private static List<Integer> checked(String name, List<Integer> points) {
        Objects.requireNonNull(points, name + " must not be null");
        int last = 0;
        for (Integer p : points) {
            if (p == null || p <= last) {
                throw new IllegalArgumentException(name + " must be positive and ascending (was " + points + ")");
            }
            last = p;
        }
        return List.copyOf(points);
    }

    /**
     * A full run's curves: 1, 8, 64 clients for 2 s each; 1, 100, 10,000 held locks for 10 s each (the
     * 8 s counted span more than two renewal intervals of the comparison's 10 s leases); 1,
     * 50, 1,000 waiters on at most 100 clients.
     */
    public static ScalePoints defaults() {
        return new ScalePoints(
                List.of(1, 8, 64),
                List.of(1, 100, 10_000),
                List.of(1, 50, 1_000),
                Duration.ofSeconds(2),
                Duration.ofSeconds(10),
                100);
    }

    /**
     * Tiny curves for a smoke run: 1 and 4 clients for 0.3 s, 1 and 10 held locks for 0.3 s (too short
     * to see most renewals), 1 and 8 waiters on at most 2 clients (opening a client is what a point
     * costs most).
     */
    public static ScalePoints quick() {
        return new ScalePoints(
                List.of(1, 4), List.of(1, 10), List.of(1, 8), Duration.ofMillis(300), Duration.ofMillis(300), 2);
    }

    /** Whether no curve has a point. */
    public boolean isEmpty() {
        return clients.isEmpty() && heldLocks.isEmpty() && waiters.isEmpty();
    }

    /** The points of {@code scenario}'s curve (empty for a scenario without one). */
    public List<Integer> points(Scenario scenario) {
        return switch (scenario) {
            case CONTENDED -> clients;
            case RENEWAL -> heldLocks;
            case HANDOFF_MANY -> waiters;
            default -> List.of();
        };
    }

    public ScalePoints withClients(List<Integer> points) {
        return new ScalePoints(points, heldLocks, waiters, contendedDuration, hold, maxWaiterClients);
    }

    public ScalePoints withHeldLocks(List<Integer> points) {
        return new ScalePoints(clients, points, waiters, contendedDuration, hold, maxWaiterClients);
    }

    public ScalePoints withWaiters(List<Integer> points) {
        return new ScalePoints(clients, heldLocks, points, contendedDuration, hold, maxWaiterClients);
    }

    public ScalePoints withContendedDuration(Duration d) {
        return new ScalePoints(clients, heldLocks, waiters, d, hold, maxWaiterClients);
    }
}
