package io.distlock.integration.leader;

import io.distlock.testing.servers.SupervisedProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.BlockingQueue;

/**
 * A {@link LeaderCandidateMain} in a child JVM (supervised: it dies with the test JVM). Its events go
 * to a queue shared by all candidates of a test, in the order they arrive here.
 */
final class CandidateJvm implements AutoCloseable {
    /** One line a candidate printed, with the moment it arrived. */
    record Event(CandidateJvm candidate, String kind, OptionalLong token, long atNanos) {}

    final String name;
    private final SupervisedProcess process;
    private final Path dir;
    private volatile boolean paused;

    private CandidateJvm(String name, SupervisedProcess process, Path dir) {
        this.name = name;
        this.process = process;
        this.dir = dir;
    }

    /** Starts a candidate for {@code role} on {@code providerUri}; its events go to {@code events}. */
    static CandidateJvm start(
            String name, String providerUri, String role, long heartBeatMillis, BlockingQueue<Event> events) {
        Path dir;
        try {
            dir = Files.createTempDirectory("distlock-candidate-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> cmd = List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                LeaderCandidateMain.class.getName(),
                role,
                Long.toString(heartBeatMillis),
                "50");
        SupervisedProcess p =
                SupervisedProcess.start("candidate-" + name, cmd, dir, dir.resolve("child.log"), true, dir, Map.of());
        CandidateJvm c = new CandidateJvm(name, p, dir);
        try {
            OutputStream stdin = p.stdin();
            stdin.write((providerUri + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException e) {
            c.close();
            throw new UncheckedIOException("candidate " + name + " does not accept its URI", e);
        }
        Thread reader = new Thread(() -> c.read(events), "distlock-candidate-" + name + "-reader");
        reader.setDaemon(true);
        reader.start();
        return c;
    }

    private void read(BlockingQueue<Event> events) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.stdout(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                String[] parts = line.trim().split(" ");
                OptionalLong token = parts.length > 1 && parts[0].equals("GRANTED") && !parts[1].equals("none")
                        ? OptionalLong.of(Long.parseLong(parts[1]))
                        : OptionalLong.empty();
                events.add(new Event(this, parts[0], token, System.nanoTime()));
            }
        } catch (IOException e) {
            // the child is gone
        }
        events.add(new Event(this, "EXITED", OptionalLong.empty(), System.nanoTime()));
    }

    /** SIGSTOP: a long GC pause. */
    void pause() {
        paused = true;
        process.pause();
    }

    /** SIGCONT. */
    void resume() {
        process.resume();
        paused = false;
    }

    boolean paused() {
        return paused;
    }

    boolean alive() {
        return process.isAlive();
    }

    /** SIGKILL: nothing released. */
    void kill() {
        process.kill();
    }

    String log() {
        return process.logTail(4000);
    }

    @Override
    public void close() {
        process.close();
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder())
                    .forEach(f -> f.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // best effort
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
