package io.distlock.compare;

import static io.distlock.compare.Figures.fmt;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.function.BiFunction;

/**
 * The table of every figure, one row per target: its columns, each with the sentence that says how
 * to read it, and the cells. The Markdown and the HTML report render the same table.
 */
final class SummaryTable {
    private SummaryTable() {}

    /** One column: its header, how to read it (a plain sentence), and its cell for a target. */
    record Column(String header, String howToRead, BiFunction<ComparisonResult, ComparisonTarget, String> cell) {}

    /** One row: the target and its cells, in column order (the target's own name is not a cell). */
    record Row(ComparisonTarget target, List<String> cells) {}

    /** The header of the first column, the target's name. */
    static final String TARGET_HEADER = "target";

    static List<Column> columns(ComparisonSettings s) {
        return List.of(
                new Column(
                        "floor p50 µs",
                        "The server's raw round trip (a PING, a no-op read, a SELECT 1), timed in blocks between the"
                                + " target's own operations: what one request costs on this machine at the least.",
                        (r, t) -> fmt(floorP50(r, t.name()), "%.0f")),
                new Column(
                        "acquire+release p50 / p99 µs",
                        fmt(
                                "One client acquires and releases a free lock %d times, after a warm-up of up to %d"
                                        + " operations (at most 3 s), and this is the median and the 99th percentile"
                                        + " of one acquire+release. The libraries on the same server take turns in"
                                        + " blocks of %d, so their figures come from the same moments.",
                                s.iterations(), s.warmup(), UncontendedScenario.INTERLEAVE_BLOCK),
                        (r, t) -> fmt(value(r, t, Scenario.UNCONTENDED, "p50_us"), "%.0f") + " / "
                                + fmt(value(r, t, Scenario.UNCONTENDED, "p99_us"), "%.0f")),
                new Column(
                        "× floor",
                        "The acquire+release median divided by the floor times the round trips the protocol needs"
                                + " (the number in brackets in the next column): 1.00 means the lock costs no more"
                                + " than the requests it cannot avoid.",
                        SummaryTable::timesFloor),
                new Column(
                        "round trips/op (floor)",
                        "The requests the server itself counted per acquire+release (Redis total_reads_processed,"
                                + " ZooKeeper packets received, etcd gRPC messages received, MariaDB Questions), and in"
                                + " brackets the fewest the protocol needs.",
                        (r, t) -> fmt(value(r, t, Scenario.UNCONTENDED, "round_trips_per_op"), "%.2f")
                                + (t.floorRequestsPerOperation() > 0
                                        ? " (" + t.floorRequestsPerOperation() + ")"
                                        : "")),
                new Column(
                        "contended ops/s (K)",
                        fmt(
                                "K clients (here %d), each with its own connections, acquire and release one lock"
                                        + " for %.1f s: acquisitions per second, all clients together.",
                                s.contendedClients(), s.contendedDuration().toMillis() / 1000.0),
                        (r, t) -> fmt(value(r, t, Scenario.CONTENDED, "ops_per_s"), "%.0f") + " ("
                                + fmt(value(r, t, Scenario.CONTENDED, "clients"), "%.0f") + ")"),
                new Column(
                        "lost updates",
                        "While holding the lock, each client increments a shared counter that nothing else"
                                + " protects; a lost increment means two clients held the lock at once. It must be"
                                + " 0.",
                        (r, t) -> fmt(value(r, t, Scenario.CONTENDED, "lost_updates"), "%.0f")),
                new Column(
                        "fair share min",
                        fmt(
                                "The contended client with the fewest acquisitions, as a share of an equal split"
                                        + " (1.00: every client got as many). Under %.2f the target is unfair: its"
                                        + " throughput came from starving some clients, so the report marks it and"
                                        + " never ranks it first.",
                                AtAGlance.UNFAIR_BELOW),
                        (r, t) -> fmt(value(r, t, Scenario.CONTENDED, "fair_share_min"), "%.2f")),
                new Column(
                        "hand-off p50 µs (1 / many)",
                        fmt(
                                "The time from a holder's release to the acquisition by a client that was already"
                                        + " waiting, with 1 waiter and with %d; each holder keeps the lock %.1f ms so"
                                        + " that the others are waiting, and the first hand-offs are not timed. A lock"
                                        + " that sleeps and retries shows its sleep here.",
                                s.manyWaiters(), s.holdBeforeRelease().toNanos() / 1e6),
                        (r, t) -> fmt(value(r, t, Scenario.HANDOFF_1, "p50_us"), "%.0f") + " / "
                                + fmt(value(r, t, Scenario.HANDOFF_MANY, "p50_us"), "%.0f")),
                new Column(
                        "new names acquire+release/s",
                        fmt(
                                "One client acquires and releases %d names it never used before, one after"
                                        + " another: what a backend spends on a lock it has not seen.",
                                s.distinctNames()),
                        (r, t) -> fmt(value(r, t, Scenario.MANY_NAMES, "ops_per_s"), "%.0f")),
                new Column(
                        "renewal req/s (1 / N locks)",
                        fmt(
                                "Server requests per second while one client holds 1 lock, then %d, for %.0f s each"
                                        + " (the first fifth not counted): what keeping leases alive costs. A library"
                                        + " that never renews shows 0.",
                                s.renewalLocks(), s.renewalHold().toMillis() / 1000.0),
                        (r, t) -> fmt(value(r, t, Scenario.RENEWAL, "requests_per_s_1_lock"), "%.2f") + " / "
                                + fmt(value(r, t, Scenario.RENEWAL, "requests_per_s_n_locks"), "%.2f")));
    }

    static List<Row> rows(ComparisonResult r) {
        List<Column> columns = columns(r.settings());
        List<Row> rows = new ArrayList<>();
        for (ComparisonTarget t : r.targets()) {
            List<String> cells = new ArrayList<>();
            columns.forEach(c -> cells.add(c.cell().apply(r, t)));
            rows.add(new Row(t, List.copyOf(cells)));
        }
        return rows;
    }

    /** The table of every figure, for the HTML and the Markdown report. */
    static Table table(ComparisonResult r) {
        List<String> headers = new ArrayList<>();
        headers.add(TARGET_HEADER);
        columns(r.settings()).forEach(c -> headers.add(c.header()));
        return new Table(
                headers,
                rows(r).stream()
                        .map(row -> new Table.Row(row.target(), row.cells()))
                        .toList());
    }

    /**
     * The floor a target's latency is compared with: the raw round trips interleaved with its
     * uncontended run (same load), else the separate raw round-trip scenario.
     */
    static OptionalDouble floorP50(ComparisonResult r, String target) {
        OptionalDouble interleaved = r.valueIfPresent(target, Scenario.UNCONTENDED, "floor_p50_us");
        return interleaved.isPresent() ? interleaved : r.valueIfPresent(target, Scenario.FLOOR, "p50_us");
    }

    private static String timesFloor(ComparisonResult r, ComparisonTarget t) {
        OptionalDouble floor = floorP50(r, t.name());
        OptionalDouble p50 = value(r, t, Scenario.UNCONTENDED, "p50_us");
        if (floor.isEmpty() || p50.isEmpty() || t.floorRequestsPerOperation() <= 0) {
            return "–";
        }
        return fmt("%.2f", p50.getAsDouble() / (floor.getAsDouble() * t.floorRequestsPerOperation()));
    }

    private static OptionalDouble value(ComparisonResult r, ComparisonTarget t, Scenario s, String metric) {
        return r.valueIfPresent(t.name(), s, metric);
    }
}
