package io.distlock.nemesis;

import io.distlock.tck.history.HistoryChecker;
import io.distlock.tck.history.HistoryEvent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Checks one backend's run: the clients' events (one monotonic clock) against the resource's write
 * log (commit order) and final balance.
 *
 * <ul>
 *   <li><b>out of token order</b>: an accepted write whose token is smaller than an earlier accepted
 *       write's (commit order); <b>duplicate token</b>: an accepted write reusing the newest token
 *       from a different holding. Both must be 0 where the backend declares fencing.
 *   <li><b>lost updates</b>: accepted writes minus the final balance (every write adds 1), plus
 *       writes a client saw committed that are not in the log. Must be 0 everywhere.
 *   <li><b>overlaps</b>: two holdings whose beliefs overlap, a belief lasting from acquisition to
 *       the earliest of release, loss, the nemesis's SIGKILL (a {@code KILLED} event recorded at
 *       the signal) and the last validity deadline read ({@link HistoryChecker}'s intervals). Reported per fault, never hidden; a failure nowhere (the lease model admits
 *       them under some faults; fencing is what must hold).
 *   <li><b>late writes</b>: writes attempted after the writer's own validity deadline (a paused or
 *       partitioned holder); fencing must reject them once a newer holder has written.
 *   <li><b>recovery</b>: from the end of a fault (its undo) to the first write the resource accepted
 *       from a holding whose acquisition was granted after the fault began; -1 ("not recovered
 *       within the run") when none was accepted before the run ended. A late write of a holder
 *       frozen across the fault does not count: it shows nothing about the lock working again.
 * </ul>
 */
final class Checker {
    private static final int MAX_EXAMPLES = 12;

    private Checker() {}

    record Input(
            String backend,
            String topology,
            String fencing,
            String failover,
            boolean fencingDeclared,
            boolean mayGrantTwice,
            int clients,
            long leaseMs,
            long startNanos,
            long endNanos,
            String clockCheck,
            List<Event> events,
            List<Results.Window> windows,
            List<Resource.Write> writes,
            long finalBalance) {}

    static Results.Backend check(Input in) {
        List<Event> events = new ArrayList<>(in.events());
        events.sort(Comparator.comparingLong(Event::nanos));
        List<Results.Window> windows = in.windows();
        int n = windows.size();
        int[] acq = new int[n];
        int[] ok = new int[n];
        int[] stale = new int[n];
        int[] err = new int[n];
        int[] ooo = new int[n];
        int[] dup = new int[n];
        int[] admitted = new int[n];
        long dataLostAt = Long.MAX_VALUE;
        for (Results.Window w : windows) {
            if (w.losesData()) {
                dataLostAt = Math.min(dataLostAt, w.injectedAt());
            }
        }
        int[] ovl = new int[n];
        double[] maxOvl = new double[n];
        int[] late = new int[n];
        int[] lateOk = new int[n];
        List<String> examples = new ArrayList<>();

        Map<String, Event> acquired = new HashMap<>();
        Map<String, Long> deadline = new HashMap<>();
        Map<String, Event> acked = new HashMap<>();
        for (Event e : events) {
            switch (e.type()) {
                case "ACQUIRED" -> {
                    acquired.put(e.holdKey(), e);
                    if (e.deadline() != Event.NONE) {
                        deadline.merge(e.holdKey(), e.deadline(), Math::max);
                    }
                    acq[phase(windows, e.nanos())]++;
                }
                case "VALID" -> {
                    if (e.deadline() != Event.NONE) {
                        deadline.merge(e.holdKey(), e.deadline(), Math::max);
                    }
                }
                case "WRITE_OK", "WRITE_STALE" -> {
                    int p = phase(windows, e.nanos());
                    if (e.type().equals("WRITE_OK")) {
                        acked.put(e.holdKey(), e);
                    } else {
                        stale[p]++;
                    }
                    Long d = deadline.get(e.holdKey());
                    if (d != null && e.nanos() > d) {
                        late[p]++;
                        if (e.type().equals("WRITE_OK")) {
                            lateOk[p]++;
                        }
                    }
                }
                case "WRITE_ERROR" -> err[phase(windows, e.nanos())]++;
                default -> {}
            }
        }

        // the resource's log, in commit order
        long maxToken = Long.MIN_VALUE;
        String maxKey = null;
        int chainBreaks = 0;
        Map<String, Boolean> inLog = new HashMap<>();
        for (int i = 0; i < in.writes().size(); i++) {
            Resource.Write w = in.writes().get(i);
            String key = w.client() + "#" + w.hold();
            inLog.put(key, true);
            Event a = acked.get(key);
            Event q = acquired.get(key);
            long at = a != null ? a.nanos() : q != null ? q.nanos() : in.endNanos();
            int p = phase(windows, at);
            ok[p]++;
            // no backend's tokens survive the loss of the data they are counted in (a server restarted
            // empty, a failover to a replica that never saw them): after such a fault, tokens may repeat
            // or go back. Admitted (no capability promises otherwise), and reported as "fencing broken"
            boolean excused = at >= dataLostAt;
            if (excused && (w.token() < maxToken || (w.token() == maxToken && !key.equals(maxKey)))) {
                admitted[p]++;
            }
            if (w.token() < maxToken) {
                ooo[p]++;
                example(
                        examples,
                        "accepted out of token order: write #" + w.id() + " by " + key + " with token " + w.token()
                                + " after token " + maxToken + " (" + maxKey + ") had been accepted");
            } else if (w.token() == maxToken && !key.equals(maxKey)) {
                dup[p]++;
                example(
                        examples,
                        "accepted a reused token: write #" + w.id() + " by " + key + " with token " + w.token()
                                + ", already used by " + maxKey);
            }
            if (w.token() > maxToken) {
                maxToken = w.token();
                maxKey = key;
            }
            if (w.balanceBefore() != i) {
                chainBreaks++;
                example(
                        examples,
                        "lost update: write #" + w.id() + " by " + key + " read balance " + w.balanceBefore() + " but "
                                + i + " writes had been accepted before it");
            }
        }
        int missing = 0;
        for (String key : acked.keySet()) {
            if (!inLog.containsKey(key)) {
                missing++;
                example(examples, "lost update: " + key + " saw its write committed, but it is not in the log");
            }
        }
        int lost = Math.max(0, in.writes().size() - (int) in.finalBalance()) + missing;
        if (in.writes().size() != in.finalBalance()) {
            example(
                    examples,
                    "final balance " + in.finalBalance() + " but " + in.writes().size() + " writes were accepted");
        }

        // overlapping beliefs, from the TCK's history checker
        List<HistoryEvent> history = new ArrayList<>();
        for (Event e : events) {
            HistoryEvent.Type t = switch (e.type()) {
                case "ACQUIRED" -> HistoryEvent.Type.ACQUIRED;
                case "VALID" -> HistoryEvent.Type.VALID;
                case "RELEASED" -> HistoryEvent.Type.RELEASED;
                case "LOST" -> HistoryEvent.Type.LOST;
                case "KILLED" -> HistoryEvent.Type.KILLED;
                default -> null;
            };
            if (t != null) {
                history.add(new HistoryEvent(
                        t,
                        e.nanos(),
                        e.client(),
                        e.holdKey(),
                        "lock",
                        e.token() < 0 ? OptionalLong.empty() : OptionalLong.of(e.token()),
                        e.deadline() == Event.NONE ? OptionalLong.empty() : OptionalLong.of(e.deadline())));
            }
        }
        HistoryChecker.Result hr = HistoryChecker.perLock().check(history);
        int[] kills = new int[n];
        for (HistoryChecker.Interval i : hr.intervals()) {
            if (i.killed()) {
                kills[phase(windows, i.end())]++;
            }
        }
        List<HistoryChecker.Interval> intervals = new ArrayList<>(hr.intervals());
        intervals.sort(Comparator.comparingLong(HistoryChecker.Interval::start));
        HistoryChecker.Interval longest = null;
        for (HistoryChecker.Interval i : intervals) {
            long end = Math.min(i.end(), in.endNanos());
            if (longest != null && i.start() < Math.min(longest.end(), in.endNanos())) {
                int p = phase(windows, i.start());
                ovl[p]++;
                double ms = (Math.min(Math.min(longest.end(), in.endNanos()), end) - i.start()) / 1e6;
                maxOvl[p] = Math.max(maxOvl[p], ms);
                example(
                        examples,
                        String.format(
                                java.util.Locale.ROOT,
                                "overlap during %s: %s (token %s) acquired while %s (token %s) still believed it held the"
                                        + " lock (%.0f ms)",
                                windows.get(p).fault(),
                                i.hold(),
                                tokenText(i.token()),
                                longest.hold(),
                                tokenText(longest.token()),
                                ms));
            }
            if (longest == null || i.end() > longest.end()) {
                longest = i;
            }
        }

        List<Results.Phase> phases = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            Results.Window w = windows.get(p);
            long endAt = p + 1 < n ? windows.get(p + 1).injectedAt() : in.endNanos();
            long recovery = p > 0 ? recoveryMs(events, acquired, w) : -1;
            phases.add(new Results.Phase(
                    w.fault(),
                    w.description(),
                    w.column(),
                    w.note(),
                    acq[p],
                    ok[p],
                    stale[p],
                    err[p],
                    ooo[p],
                    dup[p],
                    admitted[p],
                    ovl[p],
                    maxOvl[p],
                    late[p],
                    lateOk[p],
                    recovery,
                    (endAt - w.injectedAt()) / 1e6,
                    kills[p]));
        }

        List<String> failures = new ArrayList<>();
        int totalOoo = sum(ooo);
        int totalDup = sum(dup);
        int totalAdmitted = sum(admitted);
        if (in.fencingDeclared() && totalOoo + totalDup > totalAdmitted) {
            failures.add(in.backend() + " declares fencing but the resource accepted " + totalOoo
                    + " write(s) out of token order and " + totalDup + " with a reused token"
                    + (totalAdmitted > 0
                            ? " (" + totalAdmitted + " of them after a restart without data, admitted)"
                            : ""));
        }
        if (lost > 0) {
            failures.add(in.backend() + ": " + lost + " lost update(s) ("
                    + in.writes().size()
                    + " writes accepted, final balance " + in.finalBalance() + ", " + missing
                    + " acknowledged write(s) missing)");
        }
        if (in.writes().isEmpty()) {
            failures.add(in.backend() + ": no write was accepted, the run proves nothing");
        }
        if (!in.clockCheck().startsWith("ok")) {
            failures.add(in.backend() + ": the clients' clocks are not one monotonic clock: " + in.clockCheck());
        }
        return new Results.Backend(
                in.backend(),
                in.topology(),
                in.fencing(),
                in.failover(),
                in.fencingDeclared(),
                in.mayGrantTwice(),
                in.clients(),
                in.leaseMs(),
                (in.endNanos() - in.startNanos()) / 1e9,
                in.clockCheck(),
                phases,
                in.finalBalance(),
                in.writes().size(),
                acked.size(),
                lost,
                missing,
                chainBreaks,
                examples,
                failures,
                true);
    }

    /**
     * Milliseconds from {@code w}'s undo to the first accepted write (any time until the end of the
     * run) by a holding acquired after {@code w} was injected, or -1 if there is none.
     */
    static long recoveryMs(List<Event> sortedEvents, Map<String, Event> acquired, Results.Window w) {
        for (Event e : sortedEvents) {
            if (!e.type().equals("WRITE_OK") || e.nanos() < w.undoneAt()) {
                continue;
            }
            Event a = acquired.get(e.holdKey());
            if (a != null && a.nanos() > w.injectedAt()) {
                return (e.nanos() - w.undoneAt()) / 1_000_000;
            }
        }
        return -1;
    }

    private static String tokenText(OptionalLong t) {
        return t.isPresent() ? Long.toString(t.getAsLong()) : "none";
    }

    private static int sum(int[] a) {
        int s = 0;
        for (int v : a) {
            s += v;
        }
        return s;
    }

    private static void example(List<String> examples, String text) {
        if (examples.size() < MAX_EXAMPLES) {
            examples.add(text);
        }
    }

    /** The index of the window that {@code nanos} falls in (windows sorted by injection time). */
    static int phase(List<Results.Window> windows, long nanos) {
        int p = 0;
        for (int i = 1; i < windows.size(); i++) {
            if (windows.get(i).injectedAt() <= nanos) {
                p = i;
            }
        }
        return p;
    }
}
