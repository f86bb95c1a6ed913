package io.distlock.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import redis.clients.jedis.Jedis;

/**
 * Test-only launcher of a local {@code redis-server} on a free loopback port in a temp dir, without
 * persistence. Temporary: to be replaced by {@code io.distlock.tck.servers.RedisServer}.
 */
final class LocalRedisServer implements AutoCloseable {
    private final Path dir;
    private final int port;
    private final List<String> extraArgs;
    private final String sentinelMaster;
    private Process process;

    private LocalRedisServer(Path dir, int port, List<String> extraArgs, String sentinelMaster) {
        this.dir = dir;
        this.port = port;
        this.extraArgs = extraArgs;
        this.sentinelMaster = sentinelMaster;
    }

    /** A Sentinel monitoring {@code masterName} at {@code masterPort} (quorum 2, down after 1 s). */
    static LocalRedisServer startSentinel(String masterName, int masterPort) {
        try {
            Path dir = Files.createTempDirectory("distlock-sentinel-");
            Files.writeString(
                    dir.resolve("sentinel.conf"),
                    "sentinel monitor " + masterName + " 127.0.0.1 " + masterPort + " 2\n"
                            + "sentinel down-after-milliseconds " + masterName + " 1000\n"
                            + "sentinel failover-timeout " + masterName + " 5000\n");
            LocalRedisServer s = new LocalRedisServer(dir, freePort(), List.of(), masterName);
            s.launch();
            return s;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start redis-sentinel", e);
        }
    }

    static LocalRedisServer start(String... extraArgs) {
        try {
            Path dir = Files.createTempDirectory("distlock-redis-");
            LocalRedisServer s = new LocalRedisServer(dir, freePort(), List.of(extraArgs), null);
            s.launch();
            return s;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start redis-server (is it installed?)", e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private void launch() throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add("redis-server");
        if (sentinelMaster != null) {
            cmd.add(dir.resolve("sentinel.conf").toString());
            cmd.add("--sentinel");
        }
        cmd.addAll(List.of(
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--dir",
                dir.toString(),
                "--protected-mode",
                "no"));
        if (sentinelMaster == null) {
            cmd.addAll(List.of("--save", "", "--appendonly", "no"));
        }
        cmd.addAll(extraArgs);
        process = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        Awaitility.await("redis-server on port " + port)
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .ignoreExceptions()
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException(
                                "redis-server exited: " + Files.readString(dir.resolve("redis.log")));
                    }
                    try (Jedis j = new Jedis("127.0.0.1", port)) {
                        return "PONG".equals(j.ping());
                    }
                });
    }

    String host() {
        return "127.0.0.1";
    }

    int port() {
        return port;
    }

    Jedis admin() {
        return new Jedis(host(), port);
    }

    /** Sends {@code signal} (for example {@code STOP}, {@code CONT}) to the server process. */
    void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .inheritIO()
                    .start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + signal + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Kills the server with SIGKILL (no shutdown, no final save). */
    void kill() {
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process = null;
        }
    }

    void stop() {
        if (process != null) {
            if (!process.isAlive()) {
                process = null;
                return;
            }
            signal("CONT"); // a paused server cannot shut down
            process.destroy();
            try {
                if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process = null;
        }
    }

    void restart() {
        stop();
        try {
            launch();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        stop();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // temp dir
        }
    }
}
