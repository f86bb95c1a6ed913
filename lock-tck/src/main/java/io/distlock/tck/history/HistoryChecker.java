package io.distlock.tck.history;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Verifies a recorded lock history (see {@link HistoryRecorder}):
 *
 * <ol>
 *   <li><b>mutual exclusion</b>: no two holding intervals of the same lock overlap. A holding
 *       interval is {@code [acquiredAt, min(releasedAt, lostAt, killedAt, validUntil)]}: a lease is
 *       a belief that ends when the holder releases, learns of a loss, is killed ({@link
 *       HistoryEvent.Type#KILLED}, recorded by the killer at the signal), or passes the last
 *       validity deadline it read (from the {@link HistoryEvent.Type#ACQUIRED} event or a later
 *       {@link HistoryEvent.Type#VALID} checkpoint), whichever comes first. A holding with none of
 *       these (a crashed client that never read a deadline and whose crash was not recorded) is
 *       open to the end of the history;
 *   <li><b>fencing</b>: fencing tokens strictly increase in acquisition order per lock, or, with
 *       {@link #global()}, also across locks for every pair of holdings where one ended before the
 *       other began;
 *   <li><b>guarded writes</b>: {@link HistoryEvent.Type#WRITE} events of a lock, in time order,
 *       never carry a token smaller than an earlier write's (a resource accepted a stale token).
 * </ol>
 *
 * Holdings without a token are left out of the token checks.
 */
public final class HistoryChecker {
    private static final int MAX_REPORTED = 20;

    private final boolean global;

    private HistoryChecker(boolean global) {
        this.global = global;
    }

    /** Tokens are checked per lock ({@code MONOTONIC_PER_LOCK} backends, or no fencing). */
    public static HistoryChecker perLock() {
        return new HistoryChecker(false);
    }

    /** Tokens are also checked across locks ({@code GLOBALLY_MONOTONIC} backends). */
    public static HistoryChecker global() {
        return new HistoryChecker(true);
    }

    /**
     * One holding interval reconstructed from the events.
     *
     * @param killed whether the holding ended because its process was killed ({@link
     *     HistoryEvent.Type#KILLED} at or before every other end)
     */
    public record Interval(
            String client, String hold, String lock, OptionalLong token, long start, long end, boolean killed) {

        /** An interval whose holder was not killed. */
        public Interval(String client, String hold, String lock, OptionalLong token, long start, long end) {
            this(client, hold, lock, token, start, end, false);
        }

        String describe(long origin) {
            return "hold " + hold + " of client " + client + " on lock '" + lock + "' (token "
                    + (token.isPresent() ? Long.toString(token.getAsLong()) : "none") + ") from +" + ms(start - origin)
                    + " to " + (end == Long.MAX_VALUE ? "end of history" : "+" + ms(end - origin));
        }
    }

    /** What {@link #check(List)} found. */
    public record Result(List<Interval> intervals, List<String> violations, int totalViolations) {

        /** How many holdings ended because their process was killed ({@link HistoryEvent.Type#KILLED}). */
        public int kills() {
            return (int) intervals.stream().filter(Interval::killed).count();
        }

        /** {@code true} if the history has no violation. */
        public boolean ok() {
            return totalViolations == 0;
        }

        /**
         * @throws AssertionError listing the violations, unless {@link #ok()}
         */
        public void assertOk() {
            if (!ok()) {
                throw new AssertionError(describe());
            }
        }

        /** A readable summary: counts, then one line per violation. */
        public String describe() {
            StringBuilder sb = new StringBuilder();
            sb.append("history of ")
                    .append(intervals.size())
                    .append(" holdings (")
                    .append(kills())
                    .append(" ended by a kill): ")
                    .append(totalViolations)
                    .append(" violation(s)");
            for (String v : violations) {
                sb.append("\n  - ").append(v);
            }
            if (totalViolations > violations.size()) {
                sb.append("\n  ... and ")
                        .append(totalViolations - violations.size())
                        .append(" more");
            }
            return sb.toString();
        }

        @Override
        public String toString() {
            return describe();
        }
    }

    /** Checks {@code events} (in any order). */
    public Result check(List<HistoryEvent> events) {
        Objects.requireNonNull(events, "events must not be null");
        List<String> violations = new ArrayList<>();
        int[] total = {0};
        long origin = events.stream().mapToLong(HistoryEvent::nanos).min().orElse(0);

        List<Interval> intervals = intervals(events, violations, total);

        Map<String, List<Interval>> byLock = new TreeMap<>();
        for (Interval i : intervals) {
            byLock.computeIfAbsent(i.lock(), k -> new ArrayList<>()).add(i);
        }
        for (List<Interval> list : byLock.values()) {
            list.sort(Comparator.comparingLong(Interval::start));
            checkOverlaps(list, origin, violations, total);
            checkTokensPerLock(list, origin, violations, total);
        }
        if (global) {
            checkTokensGlobally(intervals, origin, violations, total);
        }
        checkWrites(events, origin, violations, total);
        return new Result(List.copyOf(intervals), List.copyOf(violations), total[0]);
    }

    private static List<Interval> intervals(List<HistoryEvent> events, List<String> violations, int[] total) {
        Map<String, List<HistoryEvent>> byHold = new LinkedHashMap<>();
        for (HistoryEvent e : events) {
            byHold.computeIfAbsent(e.client() + "\u0000" + e.hold(), k -> new ArrayList<>())
                    .add(e);
        }
        List<Interval> intervals = new ArrayList<>();
        for (List<HistoryEvent> list : byHold.values()) {
            HistoryEvent acquired = null;
            long deadline = Long.MIN_VALUE;
            long end = Long.MAX_VALUE;
            long killedAt = Long.MAX_VALUE;
            for (HistoryEvent e : list) {
                switch (e.type()) {
                    case ACQUIRED -> {
                        if (acquired != null) {
                            report(
                                    violations,
                                    total,
                                    "hold " + e.hold() + " of client " + e.client() + " has two ACQUIRED events");
                        }
                        acquired = e;
                        if (e.deadline().isPresent()) {
                            deadline = Math.max(deadline, e.deadline().getAsLong());
                        }
                    }
                    case VALID -> {
                        if (e.deadline().isPresent()) {
                            deadline = Math.max(deadline, e.deadline().getAsLong());
                        }
                    }
                    case RELEASED, LOST -> end = Math.min(end, e.nanos());
                    case KILLED -> killedAt = Math.min(killedAt, e.nanos());
                    case WRITE -> {
                        // checked separately
                    }
                }
            }
            HistoryEvent first = list.get(0);
            if (acquired == null) {
                report(
                        violations,
                        total,
                        "hold " + first.hold() + " of client " + first.client() + " has events but no ACQUIRED event");
                continue;
            }
            if (deadline != Long.MIN_VALUE) {
                end = Math.min(end, deadline);
            }
            // a kill ends the belief unless it had already ended (released, lost, run out)
            boolean killed = killedAt != Long.MAX_VALUE && killedAt <= end;
            end = Math.min(end, killedAt);
            intervals.add(new Interval(
                    acquired.client(),
                    acquired.hold(),
                    acquired.lock(),
                    acquired.token(),
                    acquired.nanos(),
                    Math.max(end, acquired.nanos()),
                    killed));
        }
        return intervals;
    }

    private static void checkOverlaps(List<Interval> sorted, long origin, List<String> violations, int[] total) {
        Interval longest = null;
        for (Interval i : sorted) {
            if (longest != null && i.start() < longest.end()) {
                report(
                        violations,
                        total,
                        "overlap: " + longest.describe(origin) + " was still valid when " + i.describe(origin)
                                + " began (" + ms(longest.end() == Long.MAX_VALUE ? -1 : longest.end() - i.start())
                                + " of overlap)");
            }
            if (longest == null || i.end() > longest.end()) {
                longest = i;
            }
        }
    }

    private static void checkTokensPerLock(List<Interval> sorted, long origin, List<String> violations, int[] total) {
        Interval previous = null;
        for (Interval i : sorted) {
            if (i.token().isEmpty()) {
                continue;
            }
            if (previous != null && i.token().getAsLong() <= previous.token().getAsLong()) {
                report(
                        violations,
                        total,
                        "token not increasing on lock '" + i.lock() + "': " + i.describe(origin) + " came after "
                                + previous.describe(origin));
            }
            previous = i;
        }
    }

    private static void checkTokensGlobally(
            List<Interval> intervals, long origin, List<String> violations, int[] total) {
        List<Interval> withToken =
                intervals.stream().filter(i -> i.token().isPresent()).toList();
        List<Interval> byStart = new ArrayList<>(withToken);
        byStart.sort(Comparator.comparingLong(Interval::start));
        List<Interval> byEnd = new ArrayList<>(withToken);
        byEnd.sort(Comparator.comparingLong(Interval::end));
        int next = 0;
        Interval max = null;
        for (Interval b : byStart) {
            while (next < byEnd.size() && byEnd.get(next).end() < b.start()) {
                Interval a = byEnd.get(next++);
                if (max == null || a.token().getAsLong() > max.token().getAsLong()) {
                    max = a;
                }
            }
            if (max != null
                    && b.token().getAsLong() <= max.token().getAsLong()
                    && !b.lock().equals(max.lock())) {
                // same-lock cases are reported by the per-lock check
                report(
                        violations,
                        total,
                        "token not globally increasing: " + b.describe(origin) + " began after " + max.describe(origin)
                                + " had ended");
            }
        }
    }

    private static void checkWrites(List<HistoryEvent> events, long origin, List<String> violations, int[] total) {
        Map<String, List<HistoryEvent>> writes = new TreeMap<>();
        for (HistoryEvent e : events) {
            if (e.type() == HistoryEvent.Type.WRITE && e.token().isPresent()) {
                writes.computeIfAbsent(e.lock(), k -> new ArrayList<>()).add(e);
            }
        }
        for (List<HistoryEvent> list : writes.values()) {
            list.sort(Comparator.comparingLong(HistoryEvent::nanos));
            HistoryEvent newest = null;
            for (HistoryEvent w : list) {
                if (newest != null && w.token().getAsLong() < newest.token().getAsLong()) {
                    report(
                            violations,
                            total,
                            "stale write accepted on '" + w.lock() + "': hold " + w.hold() + " of client "
                                    + w.client() + " wrote with token "
                                    + w.token().getAsLong() + " at +"
                                    + ms(w.nanos() - origin) + " after token "
                                    + newest.token().getAsLong()
                                    + " had written at +" + ms(newest.nanos() - origin));
                }
                if (newest == null || w.token().getAsLong() > newest.token().getAsLong()) {
                    newest = w;
                }
            }
        }
    }

    private static void report(List<String> violations, int[] total, String message) {
        total[0]++;
        if (violations.size() < MAX_REPORTED) {
            violations.add(message);
        }
    }

    private static String ms(long nanos) {
        if (nanos < 0) {
            return "unbounded";
        }
        return String.format(java.util.Locale.ROOT, "%.3f ms", nanos / 1e6);
    }
}
