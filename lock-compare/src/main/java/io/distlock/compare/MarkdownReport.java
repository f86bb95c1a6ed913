package io.distlock.compare;

import java.util.List;

/**
 * The result in Markdown: at a glance (per backend, ours against the peers on the same server), the
 * table of every figure with how to read each column, and the notes.
 */
final class MarkdownReport {
    private MarkdownReport() {}

    static String markdown(ComparisonResult r) {
        StringBuilder sb = new StringBuilder();
        sb.append("## At a glance\n\n");
        for (AtAGlance.Card c : AtAGlance.cards(r)) {
            sb.append("### ").append(c.backend()).append("\n\n");
            sb.append(
                            c.peers().isEmpty()
                                    ? "distlock's `" + c.ours().name() + "`; no other library runs on this backend."
                                    : "distlock's `" + c.ours().name() + "` against "
                                            + String.join(
                                                    ", ",
                                                    c.peers().stream()
                                                            .map(p -> "`" + p.name() + "`")
                                                            .toList())
                                            + " on the same server.")
                    .append("\n\n");
            for (AtAGlance.Figure f : c.figures()) {
                sb.append("- **").append(f.title()).append("**: ").append(f.value());
                if (!f.detail().isEmpty()) {
                    sb.append(", ").append(f.detail());
                }
                if (!f.versus().isEmpty()) {
                    sb.append(" — ")
                            .append(String.join(
                                    "; ",
                                    f.versus().stream()
                                            .map(AtAGlance.Versus::words)
                                            .toList()));
                }
                sb.append('\n');
            }
            sb.append('\n');
        }
        Sections.markdown(r, sb);
        sb.append("## Every figure\n\n");
        sb.append(SummaryTable.table(r).markdown());
        sb.append("\nHow to read each column:\n\n");
        for (SummaryTable.Column c : SummaryTable.columns(r.settings())) {
            sb.append("- **")
                    .append(c.header())
                    .append("**: ")
                    .append(c.howToRead())
                    .append('\n');
        }
        List<String> notes = Notes.of(r);
        if (!notes.isEmpty()) {
            sb.append("\n## Notes\n\n");
            notes.forEach(n -> sb.append("- ").append(n).append('\n'));
        }
        Sections.serversMarkdown(r, sb);
        return sb.toString();
    }
}
