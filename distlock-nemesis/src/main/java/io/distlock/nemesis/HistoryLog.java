package io.distlock.nemesis;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A run's {@code history-<backend>.log}: what each client did and each fault, in time order. */
final class HistoryLog {
    private HistoryLog() {}

    /** Every event and fault window, one per line, in time order (milliseconds from the first). */
    static void write(Path file, List<Event> events, List<Results.Window> windows) {
        List<String> lines = new ArrayList<>();
        List<Event> sorted = new ArrayList<>(events);
        sorted.sort(java.util.Comparator.comparingLong(Event::nanos));
        long origin = sorted.isEmpty() ? 0 : sorted.get(0).nanos();
        int w = 1;
        for (Event e : sorted) {
            while (w < windows.size() && windows.get(w).injectedAt() <= e.nanos()) {
                Results.Window x = windows.get(w++);
                lines.add(String.format(
                        java.util.Locale.ROOT,
                        "%10.3f FAULT %s (%s) undone at %.3f",
                        (x.injectedAt() - origin) / 1e6,
                        x.fault(),
                        x.note(),
                        (x.undoneAt() - origin) / 1e6));
            }
            lines.add(String.format(
                    java.util.Locale.ROOT,
                    "%10.3f %s#%d %s token=%s%s %s",
                    (e.nanos() - origin) / 1e6,
                    e.client(),
                    e.hold(),
                    e.type(),
                    e.token() < 0 ? "-" : Long.toString(e.token()),
                    e.deadline() == Event.NONE
                            ? ""
                            : String.format(java.util.Locale.ROOT, " until=%.3f", (e.deadline() - origin) / 1e6),
                    e.detail()));
        }
        try {
            java.nio.file.Files.createDirectories(file.getParent());
            java.nio.file.Files.write(file, lines);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot write " + file, e);
        }
    }
}
