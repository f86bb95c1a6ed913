package io.distlock.testing.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.testing.servers.RedisServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class TcpProxyIT {
    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    /** A persistent Redis connection speaking inline commands. */
    private static final class Client implements AutoCloseable {
        final Socket socket;
        final BufferedReader in;
        final OutputStream out;

        Client(TcpProxy proxy) throws IOException {
            socket = new Socket(proxy.host(), proxy.port());
            socket.setSoTimeout(5000);
            in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            out = socket.getOutputStream();
        }

        void send(String command) throws IOException {
            out.write((command + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        String call(String command) throws IOException {
            send(command);
            return in.readLine();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    @Test
    void proxy_noFault_forwardsAndCounts() throws Exception {
        try (TcpProxy proxy = TcpProxy.start(redis.host(), redis.port());
                Client c = new Client(proxy)) {
            assertThat(c.call("PING")).isEqualTo("+PONG");
            assertThat(proxy.acceptedConnections()).isEqualTo(1);
            assertThat(proxy.openConnections()).isEqualTo(1);
            assertThat(proxy.upstreamBytes()).isEqualTo("PING\r\n".length());
            assertThat(proxy.downstreamBytes()).isEqualTo("+PONG\r\n".length());
        }
    }

    @Test
    void roundTrips_countTheClientsWaits_aPipelineOnce() throws Exception {
        try (TcpProxy proxy = TcpProxy.start(redis.host(), redis.port());
                Client c = new Client(proxy)) {
            assertThat(c.call("PING")).isEqualTo("+PONG");
            assertThat(c.call("PING")).isEqualTo("+PONG");
            assertThat(proxy.roundTrips())
                    .as("two requests, each after the last reply")
                    .isEqualTo(2);
            // three requests in one write, then their three replies
            c.send("PING\r\nPING\r\nPING");
            for (int i = 0; i < 3; i++) {
                assertThat(c.in.readLine()).isEqualTo("+PONG");
            }
            assertThat(proxy.roundTrips()).as("a pipeline is one round trip").isEqualTo(3);
            try (Client other = new Client(proxy)) {
                assertThat(other.call("PING")).isEqualTo("+PONG");
            }
            assertThat(proxy.roundTrips()).as("counted over every connection").isEqualTo(4);
        }
    }

    @Test
    void setLatency_bothDirections_roundTripTakesAtLeastTwiceTheLatency() throws Exception {
        try (TcpProxy proxy = TcpProxy.start(redis.host(), redis.port());
                Client c = new Client(proxy)) {
            c.call("PING");
            proxy.setLatency(Duration.ofMillis(150));
            long start = System.nanoTime();
            assertThat(c.call("PING")).isEqualTo("+PONG");
            long tookMillis = (System.nanoTime() - start) / 1_000_000;
            assertThat(tookMillis).isBetween(300L, 3000L);

            proxy.setLatency(TcpProxy.Direction.UPSTREAM, Duration.ZERO);
            start = System.nanoTime();
            c.call("PING");
            tookMillis = (System.nanoTime() - start) / 1_000_000;
            assertThat(tookMillis).isBetween(150L, 2000L);

            proxy.resume();
            start = System.nanoTime();
            c.call("PING");
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(150L);
        }
    }

    @Test
    void setLatency_fixedOneWayDelay_roundTripsCloseToTwiceIt_neverShorter() throws Exception {
        try (TcpProxy proxy = TcpProxy.start(redis.host(), redis.port());
                Client c = new Client(proxy)) {
            for (long us : new long[] {200, 1000}) {
                proxy.setLatency(Duration.ofNanos(us * 1000));
                for (int i = 0; i < 20; i++) {
                    c.call("PING"); // the writers learn their timer's oversleep
                }
                proxy.resetLateness();
                long[] nanos = new long[200];
                for (int i = 0; i < nanos.length; i++) {
                    long t0 = System.nanoTime();
                    assertThat(c.call("PING")).isEqualTo("+PONG");
                    nanos[i] = System.nanoTime() - t0;
                }
                java.util.Arrays.sort(nanos);
                assertThat(nanos[0])
                        .as("fastest round trip at %d µs each way", us)
                        .isGreaterThanOrEqualTo(2 * us * 1000);
                TcpProxy.Lateness late = proxy.lateness();
                assertThat(late.chunks()).isEqualTo(2L * nanos.length);
                // on an idle machine the median lateness is a few µs; a loaded CI machine gets slack
                assertThat(late.p50()).as("median lateness at %d µs", us).isLessThan(Duration.ofMillis(1));
                assertThat(nanos[nanos.length / 2] - 2 * us * 1000)
                        .as("median round trip beyond twice the delay")
                        .isLessThan(Duration.ofMillis(2).toNanos());
            }
        }
    }

    @Test
    void setLatency_changedWhileDataIsQueued_keepsTheOrder() throws Exception {
        try (TcpProxy proxy = TcpProxy.start(redis.host(), redis.port());
                Client c = new Client(proxy)) {
            c.call("PING");
            proxy.setLatency(Duration.ofMillis(20));
            StringBuilder pipeline = new StringBuilder();
            for (int i = 0; i < 50; i++) {
                c.send("ECHO m" + i);
                if (i == 25) {
                    proxy.setLatency(Duration.ZERO); // later chunks are due earlier, yet queue behind
                }
            }
            for (int i = 0; i < 50; i++) {
                String header = c.in.readLine();
                assertThat(header).startsWith("$");
                pipeline.append(c.in.readLine()).append(' ');
            }
            StringBuilder expected = new StringBuilder();
            for (int i = 0; i < 50; i++) {
                expected.append('m').append(i).append(' ');
            }
            assertThat(pipeline.toString()).isEqualTo(expected.toString());
        }
    }

    @Test
    void blackhole_upstream_requestHangsAndCompletesAfterResume() throws Exception {
        try (TcpProxy proxy = TcpProxy.start(redis.host(), redis.port());
                Client c = new Client(proxy)) {
            c.call("PING");
            proxy.blackhole(TcpProxy.Direction.UPSTREAM);
            c.socket.setSoTimeout(500);
            c.send("PING");
            long start = System.nanoTime();
            assertThatThrownBy(c.in::readLine).isInstanceOf(SocketTimeoutException.class);
            assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(450L);
            assertThat(proxy.openConnections()).isEqualTo(1); // still connected
            assertThat(proxy.upstreamBytes()).isEqualTo(6);

            proxy.resume();
            c.socket.setSoTimeout(5000);
            assertThat(c.in.readLine()).isEqualTo("+PONG");
        }
    }

    @Test
    void blackhole_downstream_serverExecutesButClientGetsNoReply() throws Exception {
        try (TcpProxy proxy = TcpProxy.start(redis.host(), redis.port());
                Client c = new Client(proxy)) {
            c.call("PING");
            proxy.blackhole(TcpProxy.Direction.DOWNSTREAM);
            c.socket.setSoTimeout(500);
            c.send("SET proxy-key written");
            assertThatThrownBy(c.in::readLine).isInstanceOf(SocketTimeoutException.class);
            // the request reached the server
            await().atMost(Duration.ofSeconds(5)).until(() -> "written".equals(redis.call("GET", "proxy-key")));
            proxy.resume();
            c.socket.setSoTimeout(5000);
            assertThat(c.in.readLine()).isEqualTo("+OK");
        }
    }

    @Test
    void cutConnections_open_clientSeesResetAndNewConnectionsWork() throws Exception {
        try (TcpProxy proxy = TcpProxy.start(redis.host(), redis.port())) {
            Client c = new Client(proxy);
            c.call("PING");
            assertThat(proxy.cutConnections()).isEqualTo(1);
            assertThatThrownBy(() -> {
                        // the first write may still succeed locally; the read must fail
                        c.send("PING");
                        if (c.in.readLine() == null) {
                            throw new IOException("EOF");
                        }
                    })
                    .isInstanceOf(IOException.class);
            c.close();
            await().atMost(Duration.ofSeconds(5)).until(() -> proxy.openConnections() == 0);
            try (Client again = new Client(proxy)) {
                assertThat(again.call("PING")).isEqualTo("+PONG");
            }
        }
    }

    @Test
    void blackholeFault_boundReached_undoesItself() throws Exception {
        try (TcpProxy proxy = TcpProxy.start(redis.host(), redis.port());
                Client c = new Client(proxy)) {
            Fault f = Faults.blackhole(proxy, TcpProxy.Direction.BOTH, Duration.ofMillis(300));
            assertThat(proxy.isBlackholed(TcpProxy.Direction.BOTH)).isTrue();
            long start = System.nanoTime();
            assertThat(c.call("PING")).isEqualTo("+PONG");
            assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(250L);
            assertThat(f.isActive()).isFalse();
            f.close();
        }
    }

    @Test
    void close_proxy_stopsItsThreads() throws Exception {
        TcpProxy proxy = TcpProxy.start(redis.host(), redis.port());
        try (Client c = new Client(proxy)) {
            c.call("PING");
        }
        String prefix = "distlock-tcpproxy-" + proxy.port() + "-";
        proxy.close();
        assertThat(Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().startsWith(prefix))
                        .filter(Thread::isAlive))
                .isEmpty();
    }
}
