package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Counts the requests per operation from the server's own gRPC metrics. */
class EtcdRoundTripsIT {
    private static final Pattern HANDLED = Pattern.compile(
            "^grpc_server_handled_total\\{[^}]*grpc_method=\"(\\w+)\"[^}]*} ([0-9.e+]+)$", Pattern.MULTILINE);

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
            Map<String, Long> m0 = server.received();
            Lease l = p.lock("counted").tryAcquire().orElseThrow();
            Map<String, Long> m1 = server.received();
            l.release();
            Map<String, Long> m2 = server.received();
            Map<String, Long> acquire = EtcdTestServer.diff(m0, m1);
            Map<String, Long> release = EtcdTestServer.diff(m1, m2);
            System.out.println("etcd requests per uncontended acquire: " + acquire + ", per release: " + release);
            assertThat(acquire.get("Txn")).isEqualTo(1L);
            assertThat(acquire).doesNotContainKeys("Range", "DeleteRange", "Put");
            assertThat(release.get("DeleteRange")).isEqualTo(1L);
            assertThat(release).doesNotContainKeys("Range", "Txn", "Put");
        }
    }
}
