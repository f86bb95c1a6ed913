package io.distlock.etcd;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A single etcd member for this module's ITs until the shared launchers ({@code
 * io.distlock.tck.servers}) land: loopback only, free ports, temp data dir, no fsync, short
 * election timeout (so the minimum lease TTL is 1 s). Ready when {@code /health} answers.
 */
final class EtcdTestServer implements EtcdServerControl {
    private volatile Process process;
    private final ProcessBuilder builder;
    private final Path dataDir;
    private final int clientPort;
    private final Path log;

    private EtcdTestServer(ProcessBuilder builder, Process process, Path dataDir, int clientPort, Path log) {
        this.builder = builder;
        this.process = process;
        this.dataDir = dataDir;
        this.clientPort = clientPort;
        this.log = log;
    }

    /** Kills the server (its data stays) until {@link #startAgain()}. */
    @Override
    public void stop() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts the server again on the same ports with its data. */
    @Override
    public void startAgain() {
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot restart etcd", e);
        }
        awaitHealthy();
    }

    static EtcdTestServer start() {
        try {
            Path dir = Files.createTempDirectory("distlock-etcd-");
            int client = freePort();
            int peer = freePort();
            Path log = dir.resolve("etcd.log");
            String clientUrl = "http://127.0.0.1:" + client;
            String peerUrl = "http://127.0.0.1:" + peer;
            ProcessBuilder pb = new ProcessBuilder(List.of(
                            "etcd",
                            "--name=m0",
                            "--data-dir=" + dir.resolve("data"),
                            "--listen-client-urls=" + clientUrl,
                            "--advertise-client-urls=" + clientUrl,
                            "--listen-peer-urls=" + peerUrl,
                            "--initial-advertise-peer-urls=" + peerUrl,
                            "--initial-cluster=m0=" + peerUrl,
                            "--unsafe-no-fsync",
                            "--heartbeat-interval=10",
                            "--election-timeout=100",
                            "--log-level=warn"))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            Process p = pb.start();
            EtcdTestServer s = new EtcdTestServer(pb, p, dir, client, log);
            s.awaitHealthy();
            return s;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start etcd", e);
        }
    }

    private void awaitHealthy() {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("etcd exited with " + process.exitValue() + "; see " + log);
            }
            try {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create(endpoint() + "/health"))
                                .timeout(Duration.ofMillis(500))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200 && r.body().contains("\"health\":\"true\"")) {
                    return;
                }
            } catch (IOException e) {
                // not up yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting etcd", e);
            }
            try {
                Thread.sleep(20); // polling a starting process, not settling a test
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting etcd", e);
            }
        }
        close();
        throw new IllegalStateException("etcd did not become healthy within 20 s; see " + log);
    }

    String endpoint() {
        return "http://127.0.0.1:" + clientPort;
    }

    /** The Prometheus metrics text of the server. */
    String metrics() {
        try {
            return HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(endpoint() + "/metrics"))
                                    .timeout(Duration.ofSeconds(5))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** SIGSTOP / SIGCONT the server process: it keeps its sockets but answers nothing. */
    void pause(boolean paused) {
        try {
            Process k = new ProcessBuilder("kill", paused ? "-STOP" : "-CONT", Long.toString(process.pid()))
                    .inheritIO()
                    .start();
            if (!k.waitFor(10, TimeUnit.SECONDS) || k.exitValue() != 0) {
                throw new IllegalStateException("kill " + (paused ? "-STOP" : "-CONT") + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            pause(false);
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // temp dir; best effort
        }
    }
}
