package io.distlock.nemesis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes a run's {@code results.json}, {@code nemesis-results.md} (every backend, every fault, with
 * an anchor per fault) and {@code guarantee-matrix.md} (one row per backend, one cell per fault
 * class, each linking to the fault run that shows it).
 */
final class ReportWriter {
    static final List<String> COLUMNS = List.of("pause", "crash", "partition", "server", "failover", "migration");
    private static final Map<String, String> COLUMN_TITLES = Map.of(
            "pause", "holder paused past its lease",
            "crash", "holder killed",
            "partition", "client partitioned / reset / slow",
            "server", "server killed, restarted",
            "failover", "leader / master / node loss",
            "migration", "shard moved");

    /** The {@code recovery} key of a backend in {@code results.json}: the definition of {@code recoveryMs}. */
    static final String RECOVERY_BY_NEW_HOLDER = "first write by a holder granted after the fault began";

    private ReportWriter() {}

    /**
     * Whether a fault run did not recover: no write by a holder granted after the fault began before
     * the run ended; for results recorded before that definition, the nemesis's own note that no
     * write was accepted within its recovery timeout.
     */
    static boolean notRecovered(Results.Backend b, Results.Phase p) {
        if (p.fault().equals("baseline")) {
            return false;
        }
        return b.recoveryByNewHolder() ? p.recoveryMs() < 0 : p.note().contains("no write accepted within");
    }

    /**
     * For results merged from several runs: which rows an earlier run measured, e.g. " The rows of
     * redis, etcd come from the run of … (profile `long`, 1214.2 s on 2 cores, `command`)."; empty
     * when the run measured every row.
     */
    static String earlierRuns(Results.Run run) {
        StringBuilder sb = new StringBuilder();
        run.earlierByRun()
                .forEach((p, backends) -> sb.append(" The rows of ")
                        .append(String.join(", ", backends))
                        .append(" come from the run of ")
                        .append(p.started())
                        .append(" (profile `")
                        .append(p.profile())
                        .append("`, ")
                        .append(fmt(p.durationSeconds()))
                        .append(" s on ")
                        .append(p.host())
                        .append(", `")
                        .append(p.command())
                        .append("`)."));
        return sb.toString();
    }

    /** What "recovered" means in {@code run}'s results, in one or two sentences. */
    static String recoveryDefinition(Results.Run run) {
        if (run.backends().stream().allMatch(Results.Backend::recoveryByNewHolder)) {
            return "\"Recovered\": time from the end of the fault to the first write the resource accepted from a"
                    + " client granted the lock after the fault began (a late write by a holder frozen across the"
                    + " fault does not count); \"not recovered within the run\": no such write before the run"
                    + " ended.";
        }
        return "\"Recovered\": time from the end of the fault to the next accepted write, by any client (these"
                + " results were recorded before recovery counted only clients granted the lock after the fault"
                + " began: a late write by a holder frozen across the fault counts, so a lock left stuck by the"
                + " fault can show as recovered).";
    }

    static void write(Results.Run run, Path dir, String command) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("results.json"), json(run), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("nemesis-results.md"), results(run, command), StandardCharsets.UTF_8);
        Files.writeString(
                dir.resolve("guarantee-matrix.md"), matrix(run, "nemesis-results.md", command), StandardCharsets.UTF_8);
    }

    /** The anchor of every phase of {@code b}: {@code backend-fault}, then {@code -2}, {@code -3} for repeats. */
    static List<String> anchors(Results.Backend b) {
        Map<String, Integer> seen = new java.util.HashMap<>();
        List<String> out = new ArrayList<>();
        for (Results.Phase p : b.phases()) {
            int n = seen.merge(p.fault(), 1, Integer::sum);
            out.add(anchor(b.backend(), p.fault()) + (n == 1 ? "" : "-" + n));
        }
        return out;
    }

    static String anchor(String backend, String fault) {
        return backend + "-" + fault;
    }

    /** The verdict of one phase, in words. */
    static String verdict(Results.Backend b, Results.Phase p) {
        List<String> parts = new ArrayList<>();
        if (p.fencingViolationAdmitted()) {
            parts.add("**fencing broken**: " + p.outOfOrder() + " out of order, " + p.duplicateTokens()
                    + " reused token (admitted: no backend's tokens survive the loss of the server's data)");
        } else if (p.fencingViolated()) {
            parts.add("**FENCING VIOLATED**: " + p.outOfOrder() + " out of order, " + p.duplicateTokens()
                    + " reused token");
        }
        if (p.fencingViolated() && p.overlaps() > 0) {
            parts.add(p.overlaps() + " overlap(s)");
        } else if (p.overlaps() > 0) {
            parts.add(
                    b.mayGrantTwice()
                            ? "**double grant** (" + p.overlaps() + "×, admitted: MAY_GRANT_TWICE)"
                            : "**unexpected double grant** (" + p.overlaps() + "×)");
        } else {
            parts.add("no double grant");
        }
        if (p.staleRejected() > 0) {
            parts.add(p.staleRejected() + " stale write(s) rejected by fencing");
        }
        if (p.kills() > 0) {
            parts.add(p.kills() + " holder(s) killed (belief ends at the SIGKILL)");
        }
        if (p.recoveryMs() < 0 && !p.fault().equals("baseline")) {
            parts.add(
                    b.recoveryByNewHolder()
                            ? "**not recovered within the run** (no write by a client granted the lock after the"
                                    + " fault began)"
                            : "no write accepted after it");
        }
        return String.join("; ", parts);
    }

    private static int severity(Results.Backend b, Results.Phase p) {
        if (p.fencingViolated()) {
            return 3;
        }
        if (p.overlaps() > 0) {
            return 2;
        }
        if (p.staleRejected() > 0) {
            return 1;
        }
        return 0;
    }

    static String results(Results.Run run, String command) {
        StringBuilder sb = new StringBuilder();
        sb.append("# Nemesis results\n\n");
        sb.append("Generated by `")
                .append(command)
                .append("` (profile `")
                .append(run.profile())
                .append("`, started ")
                .append(run.started())
                .append(", ")
                .append(fmt(run.durationSeconds()))
                .append(" s).")
                .append(earlierRuns(run))
                .append(" Do not edit by hand.\n\n");
        sb.append("Each backend runs with ")
                .append("several lock clients, each a separate JVM, that loop: acquire the")
                .append(" lock, read-modify-write a MariaDB account guarded by `JdbcFencingGuard` (token check, read")
                .append(
                        " balance, write balance + 1, in one transaction), release. A nemesis injects each fault, bounded")
                .append(" and undone, and waits for writes to be accepted again. Columns: acquisitions; writes the")
                .append(" resource accepted; stale writes it rejected; accepted writes out of token order or with a")
                .append(" reused token (must be 0 with fencing); overlapping beliefs of holding (max overlap); writes")
                .append(" attempted after the writer's own lease ran out (accepted: no newer holder had written yet);")
                .append(" recovery ms. ")
                .append(recoveryDefinition(run))
                .append("\n\n");
        for (Results.Backend b : run.backends()) {
            sb.append("## ")
                    .append(b.backend())
                    .append(" <a id=\"")
                    .append(b.backend())
                    .append("\"></a>\n\n");
            sb.append("- servers: ").append(b.topology()).append("\n");
            sb.append("- declared: fencing `")
                    .append(b.fencing())
                    .append("`, failover `")
                    .append(b.failover())
                    .append("`\n");
            sb.append("- ")
                    .append(b.clients())
                    .append(" clients, lease ")
                    .append(b.leaseMs())
                    .append(" ms, ")
                    .append(fmt(b.durationSeconds()))
                    .append(" s; clock check: ")
                    .append(b.clockCheck())
                    .append("\n");
            sb.append("- resource: ")
                    .append(b.writesInLog())
                    .append(" writes accepted, final balance ")
                    .append(b.finalBalance())
                    .append(", lost updates ")
                    .append(b.lostUpdates())
                    .append(" (acknowledged but missing: ")
                    .append(b.acknowledgedButMissing())
                    .append(")\n");
            sb.append("- holders killed: ")
                    .append(b.total(Results.Phase::kills))
                    .append(" (each holding ends at its SIGKILL, recorded by the nemesis)\n");
            sb.append("- verdict: ")
                    .append(b.ok() ? "**pass**" : "**FAIL** — " + String.join("; ", b.failures()))
                    .append("\n\n");
            sb.append("| fault | what | acquisitions | writes accepted | stale rejected | out of order / reused token |"
                    + " overlaps (max ms) | late writes (accepted) | recovery ms | verdict |\n");
            sb.append("|---|---|---|---|---|---|---|---|---|---|\n");
            List<String> anchors = anchors(b);
            for (int i = 0; i < b.phases().size(); i++) {
                Results.Phase p = b.phases().get(i);
                sb.append("| <a id=\"")
                        .append(anchors.get(i))
                        .append("\"></a>")
                        .append(p.fault())
                        .append(" | ")
                        .append(p.description())
                        .append(p.note().isEmpty() ? "" : " (" + p.note() + ")")
                        .append(" | ")
                        .append(p.acquisitions())
                        .append(" | ")
                        .append(p.writesAccepted())
                        .append(" | ")
                        .append(p.staleRejected())
                        .append(" | ")
                        .append(p.outOfOrder())
                        .append(" / ")
                        .append(p.duplicateTokens())
                        .append(" | ")
                        .append(p.overlaps())
                        .append(p.overlaps() > 0 ? " (" + fmt(p.maxOverlapMs()) + ")" : "")
                        .append(" | ")
                        .append(p.lateWrites())
                        .append(" (")
                        .append(p.lateWritesAccepted())
                        .append(")")
                        .append(" | ")
                        .append(p.recoveryMs() < 0 ? "–" : Long.toString(p.recoveryMs()))
                        .append(" | ")
                        .append(verdict(b, p))
                        .append(" |\n");
            }
            if (!b.examples().isEmpty()) {
                sb.append("\nExamples:\n\n");
                for (String e : b.examples()) {
                    sb.append("- ").append(e).append("\n");
                }
            }
            sb.append("\n");
        }
        return sb.toString();
    }

    static String matrix(Results.Run run, String resultsLink, String command) {
        StringBuilder sb = new StringBuilder();
        sb.append("# Guarantee matrix\n\n");
        sb.append("Generated from the nemesis run of ")
                .append(run.started())
                .append(" (profile `")
                .append(run.profile())
                .append("`, `")
                .append(command)
                .append("`); each cell links to the fault run that shows it in [")
                .append(resultsLink)
                .append("](")
                .append(resultsLink)
                .append(").")
                .append(earlierRuns(run))
                .append(" Do not edit by hand.\n\n");
        sb.append("| backend | fencing (declared → shown) |");
        for (String c : COLUMNS) {
            sb.append(' ').append(COLUMN_TITLES.get(c)).append(" |");
        }
        sb.append("\n|---|---|");
        COLUMNS.forEach(c -> sb.append("---|"));
        sb.append('\n');
        for (Results.Backend b : run.backends()) {
            int ooo = b.total(Results.Phase::outOfOrder) + b.total(Results.Phase::duplicateTokens);
            int stale = b.total(Results.Phase::staleRejected);
            sb.append("| ")
                    .append(b.backend())
                    .append(" | [`")
                    .append(b.fencing())
                    .append("`: ");
            sb.append(ooo == 0 ? "0" : "**" + ooo + "**")
                    .append(" accepted out of order, ")
                    .append(stale)
                    .append(" stale rejected, ")
                    .append(b.lostUpdates() == 0 ? "0" : "**" + b.lostUpdates() + "**")
                    .append(" lost updates](")
                    .append(resultsLink)
                    .append('#')
                    .append(b.backend())
                    .append(") |");
            for (String c : COLUMNS) {
                Results.Phase worst = null;
                int count = 0;
                String worstAnchor = null;
                List<String> anchors = anchors(b);
                for (int i = 0; i < b.phases().size(); i++) {
                    Results.Phase p = b.phases().get(i);
                    if (p.column().equals(c)) {
                        count++;
                        if (worst == null || severity(b, p) > severity(b, worst)) {
                            worst = p;
                            worstAnchor = anchors.get(i);
                        }
                    }
                }
                if (worst == null) {
                    sb.append(c.equals("migration") ? " n/a |" : " not run |");
                    continue;
                }
                String text;
                if (worst.fencingViolationAdmitted()) {
                    text = "**fencing broken** (after data loss: no backend's tokens survive it)";
                } else if (worst.fencingViolated()) {
                    text = "**fencing violated**";
                } else if (worst.overlaps() > 0) {
                    text = b.mayGrantTwice() ? "**granted twice** (declared)" : "**granted twice** (not declared)";
                } else {
                    text = "held";
                }
                if (worst.staleRejected() > 0) {
                    text += ", stale writes rejected";
                }
                int stuck = 0;
                for (Results.Phase p : b.phases()) {
                    if (p.column().equals(c) && notRecovered(b, p)) {
                        stuck++;
                    }
                }
                if (stuck > 0) {
                    text += b.recoveryByNewHolder()
                            ? "; **not recovered within the run after " + stuck + " of " + count + " runs**"
                            : "; **no write accepted for the recovery timeout after " + stuck + " of " + count
                                    + " runs**";
                }
                sb.append(" [")
                        .append(text)
                        .append("](")
                        .append(resultsLink)
                        .append('#')
                        .append(worstAnchor)
                        .append(")");
                if (count > 1) {
                    sb.append(" (worst of ").append(count).append(" runs)");
                }
                sb.append(" |");
            }
            sb.append('\n');
        }
        sb.append("\n\"held\": no two clients believed they held the lock at once. \"granted twice\": two did — ")
                .append("fencing must then still reject the stale writer's writes, and the fencing column says whether")
                .append(" it did across every fault.\n");
        return sb.toString();
    }

    static String json(Results.Run run) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("profile", run.profile());
        root.put("command", run.command());
        root.put("started", run.started());
        root.put("host", run.host());
        root.put("durationSeconds", run.durationSeconds());
        root.put("ok", run.ok());
        List<Object> backends = new ArrayList<>();
        for (Results.Backend b : run.backends()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("backend", b.backend());
            Results.Provenance from = run.earlier().get(b.backend());
            if (from != null) {
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("profile", from.profile());
                r.put("command", from.command());
                r.put("started", from.started());
                r.put("host", from.host());
                r.put("durationSeconds", from.durationSeconds());
                m.put("run", r);
            }
            m.put("topology", b.topology());
            m.put("fencing", b.fencing());
            m.put("failover", b.failover());
            m.put("clients", b.clients());
            m.put("leaseMs", b.leaseMs());
            m.put("durationSeconds", b.durationSeconds());
            m.put("clockCheck", b.clockCheck());
            m.put("finalBalance", b.finalBalance());
            m.put("writesAccepted", b.writesInLog());
            m.put("writesAcknowledged", b.writesAcknowledged());
            m.put("lostUpdates", b.lostUpdates());
            m.put("acknowledgedButMissing", b.acknowledgedButMissing());
            m.put("balanceChainBreaks", b.balanceChainBreaks());
            if (b.recoveryByNewHolder()) {
                m.put("recovery", RECOVERY_BY_NEW_HOLDER);
            }
            m.put("ok", b.ok());
            m.put("failures", b.failures());
            m.put("examples", b.examples());
            List<Object> phases = new ArrayList<>();
            for (Results.Phase p : b.phases()) {
                Map<String, Object> q = new LinkedHashMap<>();
                q.put("fault", p.fault());
                q.put("column", p.column());
                q.put("description", p.description());
                q.put("note", p.note());
                q.put("acquisitions", p.acquisitions());
                q.put("writesAccepted", p.writesAccepted());
                q.put("staleRejected", p.staleRejected());
                q.put("writeErrors", p.writeErrors());
                q.put("outOfOrder", p.outOfOrder());
                q.put("duplicateTokens", p.duplicateTokens());
                q.put("fencingViolationsAdmitted", p.fencingAdmitted());
                q.put("overlaps", p.overlaps());
                q.put("maxOverlapMs", p.maxOverlapMs());
                q.put("lateWrites", p.lateWrites());
                q.put("lateWritesAccepted", p.lateWritesAccepted());
                q.put("recoveryMs", p.recoveryMs());
                q.put("durationMs", p.durationMs());
                q.put("kills", p.kills());
                q.put("verdict", verdict(b, p));
                phases.add(q);
            }
            m.put("phases", phases);
            backends.add(m);
        }
        root.put("backends", backends);
        StringBuilder sb = new StringBuilder();
        value(sb, root, "");
        return sb.append('\n').toString();
    }

    /**
     * Appends {@code v} (maps, lists, strings, numbers, booleans) as JSON; a map of plain values on one
     * line, so recorded results stay short and diffable.
     */
    static void value(StringBuilder sb, Object v, String indent) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String s) {
            sb.append('"');
            for (char ch : s.toCharArray()) {
                switch (ch) {
                    case '"' -> sb.append("\\\"");
                    case '\\' -> sb.append("\\\\");
                    case '\n' -> sb.append("\\n");
                    case '\r' -> sb.append("\\r");
                    case '\t' -> sb.append("\\t");
                    default -> {
                        if (ch < 0x20) {
                            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
                        } else {
                            sb.append(ch);
                        }
                    }
                }
            }
            sb.append('"');
        } else if (v instanceof Double d) {
            sb.append(fmt(d));
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else if (v instanceof Map<?, ?> m
                && !m.isEmpty()
                && m.values().stream().noneMatch(x -> x instanceof Map || x instanceof List)) {
            // a flat object (one fault phase) on one line: the recorded results stay short and diffable
            sb.append("{");
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                sb.append(first ? "" : ", ");
                value(sb, String.valueOf(e.getKey()), indent);
                sb.append(": ");
                value(sb, e.getValue(), indent);
                first = false;
            }
            sb.append("}");
        } else if (v instanceof Map<?, ?> m) {
            sb.append("{");
            String inner = indent + "  ";
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                sb.append(first ? "\n" : ",\n").append(inner);
                value(sb, String.valueOf(e.getKey()), inner);
                sb.append(": ");
                value(sb, e.getValue(), inner);
                first = false;
            }
            sb.append(first ? "}" : "\n" + indent + "}");
        } else if (v instanceof List<?> l) {
            sb.append("[");
            String inner = indent + "  ";
            boolean first = true;
            for (Object o : l) {
                sb.append(first ? "\n" : ",\n").append(inner);
                value(sb, o, inner);
                first = false;
            }
            sb.append(first ? "]" : "\n" + indent + "]");
        } else {
            value(sb, String.valueOf(v), indent);
        }
    }

    static String fmt(double d) {
        return String.format(Locale.ROOT, "%.1f", d);
    }
}
