package io.distlock.etcd;

import io.distlock.tck.servers.EtcdServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

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

    /** SIGSTOP / SIGCONT: sockets stay open, nothing is answered. */
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
