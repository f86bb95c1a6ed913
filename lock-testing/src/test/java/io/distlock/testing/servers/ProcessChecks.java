package io.distlock.testing.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;

/** Checks through /proc that processes and directories are gone. */
final class ProcessChecks {
    private ProcessChecks() {}

    static boolean alive(long pid) {
        Path stat = Paths.get("/proc", Long.toString(pid), "stat");
        try {
            String s = Files.readString(stat);
            // a zombie is dead for our purposes (its parent has not reaped it yet)
            return !s.substring(s.lastIndexOf(')') + 2).startsWith("Z");
        } catch (java.io.IOException e) {
            return false;
        }
    }

    static void assertGone(long pid) {
        await("pid " + pid + " to be gone")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> !alive(pid));
    }

    static void assertNoDirsOfThisJvm() {
        Path base = ServerDirs.base();
        String me = Long.toString(ProcessHandle.current().pid());
        if (!Files.exists(base)) {
            return;
        }
        try (var dirs = Files.list(base)) {
            assertThat(dirs.filter(d -> {
                        try {
                            return Files.readString(d.resolve(ServerDirs.OWNER_FILE))
                                    .trim()
                                    .equals(me);
                        } catch (java.io.IOException e) {
                            return false;
                        }
                    }))
                    .as("server directories left by this JVM")
                    .isEmpty();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
