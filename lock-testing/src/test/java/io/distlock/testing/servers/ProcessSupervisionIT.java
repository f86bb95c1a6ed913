package io.distlock.testing.servers;

import static io.distlock.testing.servers.ProcessChecks.alive;
import static io.distlock.testing.servers.ProcessChecks.assertGone;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcessSupervisionIT {

    @Test
    void testJvmKilledWithSigkill_serverDiesAndDirectoryIsRemoved() throws Exception {
        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(
                        java.toString(), "-cp", System.getProperty("java.class.path"), OrphanProbeMain.class.getName())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertThat(line).startsWith("STARTED ");
            String[] parts = line.split(" ");
            long redisPid = Long.parseLong(parts[1]);
            Path dir = Paths.get(parts[2]);
            assertThat(alive(redisPid)).isTrue();
            assertThat(dir).isDirectory();

            new ProcessBuilder("kill", "-9", Long.toString(child.pid())).start().waitFor();

            assertGone(redisPid);
            await("server directory removed").atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(dir));
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void staleDirectoryOfDeadJvm_removedAtNextStart() throws Exception {
        Path base = ServerDirs.base();
        Files.createDirectories(base);
        Path stale = Files.createTempDirectory(base, "stale-");
        // a pid that cannot exist (above pid_max)
        Files.writeString(stale.resolve(ServerDirs.OWNER_FILE), "99999999");
        Path mine = ServerDirs.create("sweep-check");
        try {
            assertThat(stale).doesNotExist();
            assertThat(mine).isDirectory();
        } finally {
            ServerDirs.deleteQuietly(mine);
        }
    }

    @Test
    void supervisedProcess_pauseResumeKill_signalsReachTheCommand() throws Exception {
        Path dir = ServerDirs.create("sleep");
        try (SupervisedProcess p = SupervisedProcess.start(
                "sleep", List.of("sleep", "60"), dir, dir.resolve("log"), false, dir, Map.of())) {
            long pid = p.pid();
            // the pid is the command itself, not the supervisor (exec may still be under way)
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> Files.readString(Paths.get("/proc", Long.toString(pid), "cmdline"))
                            .startsWith("sleep"));
            p.pause();
            await().atMost(Duration.ofSeconds(5)).until(() -> state(pid) == 'T');
            p.resume();
            await().atMost(Duration.ofSeconds(5)).until(() -> state(pid) == 'S');
            p.kill();
            assertGone(pid);
            assertThat(p.isAlive()).isFalse();
        } finally {
            ServerDirs.deleteQuietly(dir);
        }
    }

    private static char state(long pid) throws Exception {
        String s = Files.readString(Paths.get("/proc", Long.toString(pid), "stat"));
        return s.charAt(s.lastIndexOf(')') + 2);
    }
}
