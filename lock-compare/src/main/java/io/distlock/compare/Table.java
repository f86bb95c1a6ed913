package io.distlock.compare;

import static io.distlock.compare.Html.esc;

import java.util.List;

/**
 * A table of figures that the HTML and the Markdown report render alike: a header row and rows of
 * cells, the first column the target (peers marked).
 */
record Table(List<String> headers, List<Row> rows) {

    /** One row: its target (for the peer mark) and its cells after the target's name. */
    record Row(ComparisonTarget target, List<String> cells) {}

    String html(String id) {
        StringBuilder sb = new StringBuilder("<table id=\"").append(esc(id)).append("\"><tr>");
        headers.forEach(h -> sb.append("<th>").append(esc(h)).append("</th>"));
        sb.append("</tr>");
        for (Row row : rows) {
            sb.append("<tr><td>").append(esc(row.target().name()));
            if (row.target().peer()) {
                sb.append(" <span class=\"peer\">(peer)</span>");
            }
            sb.append("</td>");
            row.cells().forEach(c -> sb.append("<td>").append(esc(c)).append("</td>"));
            sb.append("</tr>");
        }
        return sb.append("</table>\n").toString();
    }

    String markdown() {
        StringBuilder sb =
                new StringBuilder("| ").append(String.join(" | ", headers)).append(" |\n|---");
        for (int i = 1; i < headers.size(); i++) {
            sb.append("|---:");
        }
        sb.append("|\n");
        for (Row row : rows) {
            sb.append("| ").append(row.target().name()).append(row.target().peer() ? " *(peer)*" : "");
            row.cells().forEach(c -> sb.append(" | ").append(c));
            sb.append(" |\n");
        }
        return sb.toString();
    }
}
