package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Counts the requests per operation from the server's own gRPC metrics. */
class EtcdRoundTripsIT {
    private static final Pattern HANDLED = Pattern.compile(
            "^grpc_server_handled_total\\{[^}]*grpc_method=\"(\\w+)\"[^}]*} ([0-9.e+]+)$", Pattern.MULTILINE);
    private static final Pattern RECEIVED = Pattern.compile(
            "^grpc_server_msg_received_total\\{[^}]*grpc_method=\"(\\w+)\"[^}]*} ([0-9.e+]+)$", Pattern.MULTILINE);

    private static EtcdTestServer server;

    @BeforeAll
    static void start() {
        server = EtcdTestServer.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** Messages received per gRPC method (unary calls count one each; stream messages one each). */
    private static Map<String, Long> received() {
        Map<String, Long> m = new TreeMap<>();
        Matcher r = RECEIVED.matcher(server.metrics());
        while (r.find()) {
            m.merge(r.group(1), (long) Double.parseDouble(r.group(2)), Long::sum);
        }
        return m;
    }

    private static Map<String, Long> diff(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> d = new TreeMap<>();
        after.forEach((k, v) -> {
            long delta = v - before.getOrDefault(k, 0L);
            if (delta != 0) {
                d.put(k, delta);
            }
        });
        return d;
    }

    @Test
    void uncontended_acquireIsOneTxn_releaseIsOneDelete() throws Exception {
        try (EtcdLockProvider p = EtcdLockProvider.builder()
                .etcdOptions(
                        EtcdLockOptions.builder().endpoints(server.endpoint()).build())
                .options(LockOptions.defaults()
                        .mutate()
                        .leaseTime(Duration.ofSeconds(30))
                        .build())
                .build()) {
            p.lock("warm-up").tryAcquire().orElseThrow().release(); // session grant, channels
            Map<String, Long> m0 = received();
            Lease l = p.lock("counted").tryAcquire().orElseThrow();
            Map<String, Long> m1 = received();
            l.release();
            Map<String, Long> m2 = received();
            Map<String, Long> acquire = diff(m0, m1);
            Map<String, Long> release = diff(m1, m2);
            System.out.println("etcd requests per uncontended acquire: " + acquire + ", per release: " + release);
            assertThat(acquire.get("Txn")).isEqualTo(1L);
            assertThat(acquire).doesNotContainKeys("Range", "DeleteRange", "Put");
            assertThat(release.get("DeleteRange")).isEqualTo(1L);
            assertThat(release).doesNotContainKeys("Range", "Txn", "Put");
        }
    }
}
