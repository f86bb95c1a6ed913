package io.distlock.compare.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What the report says about the machine beyond what the JVM knows: the CPU model, the memory and
 * the load average (read from Linux's {@code /proc}; absent elsewhere).
 */
final class MachineFacts {
    private MachineFacts() {}

    /** The CPU model, for example "AMD EPYC 7B13". */
    static Optional<String> cpuModel() {
        return proc("cpuinfo")
                .flatMap(text -> text.lines()
                        .filter(l -> l.startsWith("model name"))
                        .map(l -> l.substring(l.indexOf(':') + 1).strip())
                        .findFirst());
    }

    /** The total memory in MiB. */
    static Optional<String> memoryMb() {
        return proc("meminfo")
                .flatMap(text -> text.lines()
                        .filter(l -> l.startsWith("MemTotal:"))
                        .map(l -> l.replaceAll("[^0-9]", ""))
                        .filter(kb -> !kb.isEmpty())
                        .map(kb -> String.valueOf(Long.parseLong(kb) / 1024))
                        .findFirst());
    }

    /** The load averages over 1, 5 and 15 minutes, for example "0.52 0.61 0.70". */
    static Optional<String> loadAverage() {
        return proc("loadavg").map(text -> {
            String[] f = text.strip().split("\\s+");
            return f.length >= 3 ? f[0] + " " + f[1] + " " + f[2] : text.strip();
        });
    }

    private static Optional<String> proc(String name) {
        try {
            return Optional.of(Files.readString(Path.of("/proc", name), StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
