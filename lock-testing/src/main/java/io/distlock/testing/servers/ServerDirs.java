package io.distlock.testing.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Temporary directories of test servers, under {@code ${java.io.tmpdir}/distlock-servers}. Each
 * holds an {@code .owner} file with the pid of the JVM that made it; creating a directory first
 * deletes those whose owner JVM is gone (a run that was killed before its watchers could clean up).
 */
final class ServerDirs {
    static final String OWNER_FILE = ".owner";

    private ServerDirs() {}

    static Path base() {
        return Paths.get(System.getProperty("java.io.tmpdir"), "distlock-servers");
    }

    static Path create(String kind) {
        try {
            Path base = base();
            Files.createDirectories(base);
            sweepStale(base);
            Path dir = Files.createTempDirectory(base, kind + "-");
            Files.writeString(
                    dir.resolve(OWNER_FILE),
                    Long.toString(ProcessHandle.current().pid()),
                    StandardCharsets.US_ASCII);
            return dir;
        } catch (IOException e) {
            throw new ServerStartException("cannot create a temporary directory for " + kind + ": " + e, e);
        }
    }

    /** Deletes directories whose owner JVM no longer runs. */
    static void sweepStale(Path base) {
        try (Stream<Path> dirs = Files.list(base)) {
            dirs.filter(Files::isDirectory).forEach(dir -> {
                Path owner = dir.resolve(OWNER_FILE);
                try {
                    long pid = Long.parseLong(
                            Files.readString(owner, StandardCharsets.US_ASCII).trim());
                    if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                        return;
                    }
                } catch (IOException | NumberFormatException e) {
                    return; // being created, or not ours
                }
                deleteQuietly(dir);
            });
        } catch (IOException | UncheckedIOException e) {
            // best effort
        }
    }

    static void deleteQuietly(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // best effort
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // best effort
        }
    }

    /** Deletes everything in {@code dir} except the owner file. */
    static void emptyDir(Path dir) {
        try (Stream<Path> paths = Files.list(dir)) {
            paths.filter(p -> !p.getFileName().toString().equals(OWNER_FILE)).forEach(p -> {
                if (Files.isDirectory(p)) {
                    deleteQuietly(p);
                } else {
                    try {
                        Files.deleteIfExists(p);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
