package io.distlock.testing.servers;

import static io.distlock.testing.servers.ProcessChecks.alive;
import static io.distlock.testing.servers.ProcessChecks.assertGone;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
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

    /**
     * Once the command has exited, its pid may belong to another process (a busy machine reuses pids
     * within minutes): no signal may be sent by pid any more, so a late kill or close cannot hit it.
     */
    @Test
    void supervisedProcess_commandExited_signalRefusedAndKillSendsNothing() throws Exception {
        Path dir = ServerDirs.create("true");
        try (SupervisedProcess p =
                SupervisedProcess.start("true", List.of("true"), dir, dir.resolve("log"), false, dir, Map.of())) {
            await().atMost(Duration.ofSeconds(10)).until(() -> !p.isAlive());

            assertThatThrownBy(() -> p.signal("STOP"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("is not running");
            long t0 = System.nanoTime();
            p.kill();
            p.stop(Duration.ofSeconds(5));
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
        } finally {
            ServerDirs.deleteQuietly(dir);
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
