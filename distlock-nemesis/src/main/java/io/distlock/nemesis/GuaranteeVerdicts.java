package io.distlock.nemesis;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What the recorded nemesis results say about each backend, in the words of the guarantee table
 * (the fencing cell and one cell per fault class), as plain text without links or Markdown: for
 * tools that show a backend's safety next to other figures, such as {@code ./distlock compare}'s
 * report.
 */
public final class GuaranteeVerdicts {
    private GuaranteeVerdicts() {}

    /**
     * One backend's row of the guarantee table.
     *
     * @param backend the backend's name in the results (redis, redis-sentinel, redlock, zookeeper, etcd,
     *     mysql)
     * @param fencing the fencing cell, for example "MONOTONIC_PER_LOCK: held — 0 of 5881 accepted
     *     writes out of token order, 10 stale writes rejected"
     * @param fencingBroken whether the resource accepted a write out of token order or with a reused
     *     token
     * @param faults one cell per fault class, in the table's order
     */
    public record Verdict(String backend, String fencing, boolean fencingBroken, List<Fault> faults) {
        public Verdict {
            faults = List.copyOf(faults);
        }
    }

    /**
     * One fault class's cell.
     *
     * @param title the column's title, for example "failover / leader or node loss"
     * @param text what happened, for example "never granted twice; recovered in ≤ 19 ms", or why the
     *     fault does not apply
     * @param unsafe whether the lock was granted twice or fencing broke under it
     */
    public record Fault(String title, String text, boolean unsafe) {}

    /** The title of the failover column, the one most readers look for first. */
    public static final String FAILOVER = ReadmeSection.TITLES.get("failover");

    /** The verdicts of every backend in {@code resultsJson} (a {@code nemesis-results.json}), in its order. */
    public static List<Verdict> read(Path resultsJson) throws IOException {
        Results.Run run = ResultsJson.read(resultsJson);
        List<Verdict> out = new ArrayList<>();
        for (Results.Backend b : run.backends()) {
            List<String> anchors = ReportWriter.anchors(b);
            List<Fault> faults = new ArrayList<>();
            for (String column : ReadmeSection.COLUMNS) {
                ReadmeSection.Cell c = ReadmeSection.cell(b, anchors, column);
                faults.add(new Fault(ReadmeSection.TITLES.get(column), plain(c.text()), c.unsafe()));
            }
            boolean broken = b.total(Results.Phase::outOfOrder) + b.total(Results.Phase::duplicateTokens) > 0;
            out.add(new Verdict(b.backend(), plain(ReadmeSection.fencingText(b)), broken, faults));
        }
        return out;
    }

    /** {@code markdown} without emphasis and code marks. */
    private static String plain(String markdown) {
        return markdown.replace("**", "").replace("`", "");
    }
}
