package io.distlock.etcd;

import io.distlock.testing.servers.EtcdServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * This module's view of one etcd member started by the shared launcher {@link EtcdServer}: its
 * endpoint, its Prometheus metrics, pause/resume and stop/start with its data.
 */
final class EtcdTestServer implements EtcdServerControl {
    private final EtcdServer server;

    private EtcdTestServer(EtcdServer server) {
        this.server = server;
    }

    static EtcdTestServer start() {
        return new EtcdTestServer(EtcdServer.start());
    }

    String endpoint() {
        return server.endpoint();
    }

    /** The Prometheus metrics text of the server. */
    String metrics() {
        return metrics(endpoint());
    }

    private static final Pattern RECEIVED = Pattern.compile(
            "^grpc_server_msg_received_total\\{[^}]*grpc_method=\"(\\w+)\"[^}]*} ([0-9.e+]+)$", Pattern.MULTILINE);

    /** Messages received per gRPC method (unary calls count one each; stream messages one each). */
    Map<String, Long> received() {
        Map<String, Long> m = new TreeMap<>();
        Matcher r = RECEIVED.matcher(metrics());
        while (r.find()) {
            m.merge(r.group(1), (long) Double.parseDouble(r.group(2)), Long::sum);
        }
        return m;
    }

    private static final Pattern STARTED = Pattern.compile(
            "^grpc_server_started_total\\{[^}]*grpc_method=\"(\\w+)\"[^}]*} ([0-9.e+]+)$", Pattern.MULTILINE);

    /** Calls started per gRPC method (a stream counts once, however many messages it carries). */
    Map<String, Long> started() {
        Map<String, Long> m = new TreeMap<>();
        Matcher r = STARTED.matcher(metrics());
        while (r.find()) {
            m.merge(r.group(1), (long) Double.parseDouble(r.group(2)), Long::sum);
        }
        return m;
    }

    /** Per method, what {@code after} received more than {@code before} (methods with no change left out). */
    static Map<String, Long> diff(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> d = new TreeMap<>();
        after.forEach((k, v) -> {
            long delta = v - before.getOrDefault(k, 0L);
            if (delta != 0) {
                d.put(k, delta);
            }
        });
        return d;
    }

    /**
     * Waits until the server has received at least {@code count} more {@code method} messages than
     * in {@code before}, and then until nothing but keepalives arrives for two polls in a row
     * (250 ms apart): a request still in flight would otherwise be counted in the next window.
     */
    void awaitReceivedThenQuiet(Map<String, Long> before, String method, long count) {
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> diff(before, received()).getOrDefault(method, 0L) >= count);
        java.util.concurrent.atomic.AtomicReference<Map<String, Long>> last =
                new java.util.concurrent.atomic.AtomicReference<>();
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> {
                    Map<String, Long> now = received();
                    now.remove("LeaseKeepAlive");
                    return now.equals(last.getAndSet(now));
                });
    }

    static String metrics(String endpoint) {
        try {
            return HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(endpoint + "/metrics"))
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

    /**
     * SIGSTOP / SIGCONT: sockets stay open, nothing is answered. Pausing returns once every thread of
     * the server is stopped ({@code SupervisedProcess.pause}), so a request sent right after it is
     * not answered.
     */
    void pause(boolean paused) {
        if (paused) {
            server.pause();
        } else {
            server.resume();
        }
    }

    @Override
    public void stop() {
        server.kill();
    }

    @Override
    public void startAgain() {
        server.restart(true);
    }

    @Override
    public void close() {
        server.close();
    }
}
