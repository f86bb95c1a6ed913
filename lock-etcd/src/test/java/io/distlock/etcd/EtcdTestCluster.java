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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A 3-member etcd cluster for this module's ITs until {@code io.distlock.tck.servers.EtcdCluster}
 * lands: loopback only, free ports, temp data dirs, no fsync; members can be killed and restarted
 * with their data.
 */
final class EtcdTestCluster implements EtcdServerControl {
    private final Path dir;
    private final int[] clientPorts;
    private final int[] peerPorts;
    private final Process[] processes;
    private final String initialCluster;

    private EtcdTestCluster(int n) throws IOException {
        this.dir = Files.createTempDirectory("distlock-etcd-cluster-");
        this.clientPorts = new int[n];
        this.peerPorts = new int[n];
        this.processes = new Process[n];
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            clientPorts[i] = freePort();
            peerPorts[i] = freePort();
            peers.add("m" + i + "=http://127.0.0.1:" + peerPorts[i]);
        }
        this.initialCluster = String.join(",", peers);
    }

    static EtcdTestCluster start(int n) {
        try {
            EtcdTestCluster c = new EtcdTestCluster(n);
            for (int i = 0; i < n; i++) {
                c.launch(i);
            }
            for (int i = 0; i < n; i++) {
                c.awaitHealthy(i);
            }
            return c;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start etcd cluster", e);
        }
    }

    private void launch(int i) throws IOException {
        String clientUrl = "http://127.0.0.1:" + clientPorts[i];
        String peerUrl = "http://127.0.0.1:" + peerPorts[i];
        processes[i] = new ProcessBuilder(List.of(
                        "etcd",
                        "--name=m" + i,
                        "--data-dir=" + dir.resolve("m" + i),
                        "--listen-client-urls=" + clientUrl,
                        "--advertise-client-urls=" + clientUrl,
                        "--listen-peer-urls=" + peerUrl,
                        "--initial-advertise-peer-urls=" + peerUrl,
                        "--initial-cluster=" + initialCluster,
                        "--initial-cluster-state=new",
                        "--initial-cluster-token=distlock-test",
                        "--unsafe-no-fsync",
                        "--heartbeat-interval=20",
                        "--election-timeout=200",
                        "--log-level=warn"))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        dir.resolve("m" + i + ".log").toFile()))
                .start();
    }

    List<String> endpoints() {
        List<String> out = new ArrayList<>();
        for (int p : clientPorts) {
            out.add("http://127.0.0.1:" + p);
        }
        return out;
    }

    String endpoint(int i) {
        return "http://127.0.0.1:" + clientPorts[i];
    }

    private String get(int i, String path) throws IOException, InterruptedException {
        return HttpClient.newBuilder()
                .connectTimeout(Duration.ofMillis(500))
                .build()
                .send(
                        HttpRequest.newBuilder(URI.create(endpoint(i) + path))
                                .timeout(Duration.ofSeconds(2))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    void awaitHealthy(int i) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            try {
                if (get(i, "/health").contains("\"health\":\"true\"")) {
                    return;
                }
            } catch (IOException e) {
                // not yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            try {
                Thread.sleep(20); // polling a starting process
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("member m" + i + " not healthy within 30 s; see " + dir);
    }

    /** Index of the current leader, or -1 if no live member reports being leader. */
    int leader() {
        for (int i = 0; i < processes.length; i++) {
            if (processes[i] == null || !processes[i].isAlive()) {
                continue;
            }
            try {
                if (get(i, "/metrics").contains("\netcd_server_is_leader 1")) {
                    return i;
                }
            } catch (IOException e) {
                // member not answering
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return -1;
    }

    void kill(int i) {
        Process p = processes[i];
        p.destroyForcibly();
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGSTOP / SIGCONT member {@code i}: its sockets stay open, nothing is answered. */
    void pause(int i, boolean paused) {
        try {
            Process k = new ProcessBuilder("kill", paused ? "-STOP" : "-CONT", Long.toString(processes[i].pid()))
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

    /** Kills every member (data stays). */
    @Override
    public void stop() {
        for (int i = 0; i < processes.length; i++) {
            if (processes[i] != null && processes[i].isAlive()) {
                kill(i);
            }
        }
    }

    /** Starts every member again with its data; healthy once a quorum is back. */
    @Override
    public void startAgain() {
        try {
            for (int i = 0; i < processes.length; i++) {
                if (processes[i] == null || !processes[i].isAlive()) {
                    launch(i);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        for (int i = 0; i < processes.length; i++) {
            awaitHealthy(i);
        }
    }

    void restart(int i) {
        try {
            launch(i);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        awaitHealthy(i);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        for (int i = 0; i < processes.length; i++) {
            if (processes[i] != null && processes[i].isAlive()) {
                pause(i, false);
                processes[i].destroy();
            }
        }
        for (Process p : processes) {
            if (p == null) {
                continue;
            }
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // temp dir; best effort
        }
    }
}
