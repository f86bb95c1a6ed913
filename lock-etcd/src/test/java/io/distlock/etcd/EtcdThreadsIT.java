package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A provider that built its own jetcd client leaves no thread running once closed. */
class EtcdThreadsIT {
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
    void close_ownedClient_allThreadsItStartedEnd() throws Exception {
        Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
        EtcdLockProvider p = EtcdLockProvider.builder()
                .endpoints(server.endpoint())
                .lockOptions(LockOptions.defaults()
                        .mutate()
                        .leaseTime(Duration.ofSeconds(2))
                        .build())
                .build();
        Lease l = p.lock("threads").acquire();
        Set<String> started = new TreeSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (!before.contains(t)) {
                started.add(t.getName());
            }
        }
        assertThat(started).anyMatch(n -> n.startsWith("distlock-etcd-session-"));
        l.release();
        p.close();
        await().pollInSameThread().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            List<String> left = new ArrayList<>();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (!before.contains(t) && t.isAlive()) {
                    left.add(t.getName());
                }
            }
            assertThat(left)
                    .as("threads still running after close (started: %s)", started)
                    .isEmpty();
        });
    }
}
