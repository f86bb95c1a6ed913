package io.distlock.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import redis.clients.jedis.Jedis;

/**
 * Test-only Sentinel monitoring a master of our choosing. {@code RedisSentinelSetup} starts its own
 * master and replica, so it cannot put the replication link behind a {@code TcpProxy}, which
 * {@link RedisSentinelFailoverIT} needs; this class only adds the sentinels.
 */
final class LocalSentinel implements AutoCloseable {
    private final Path dir;
    private final int port;
    private final Process process;

    private LocalSentinel(Path dir, int port, Process process) {
        this.dir = dir;
        this.port = port;
        this.process = process;
    }

    /** A Sentinel monitoring {@code masterName} at {@code masterPort} (quorum 2, down after 1 s). */
    static LocalSentinel start(String masterName, int masterPort) {
        try {
            Path dir = Files.createTempDirectory("distlock-sentinel-");
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            Path conf = dir.resolve("sentinel.conf");
            Files.writeString(
                    conf,
                    String.join(
                            "\n",
                            "port " + port,
                            "bind 127.0.0.1",
                            "protected-mode no",
                            "dir " + dir,
                            "sentinel monitor " + masterName + " 127.0.0.1 " + masterPort + " 2",
                            "sentinel down-after-milliseconds " + masterName + " 1000",
                            "sentinel failover-timeout " + masterName + " 5000",
                            ""));
            Process p = new ProcessBuilder(List.of("redis-sentinel", conf.toString()))
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("sentinel.log").toFile())
                    .start();
            LocalSentinel s = new LocalSentinel(dir, port, p);
            try {
                Awaitility.await("redis-sentinel on port " + port)
                        .atMost(Duration.ofSeconds(10))
                        .pollInterval(Duration.ofMillis(20))
                        .ignoreExceptions()
                        .until(() -> {
                            try (Jedis j = s.admin()) {
                                return "PONG".equals(j.ping());
                            }
                        });
            } catch (RuntimeException e) {
                s.close();
                throw e;
            }
            return s;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start redis-sentinel", e);
        }
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

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // temp dir
        }
    }
}
