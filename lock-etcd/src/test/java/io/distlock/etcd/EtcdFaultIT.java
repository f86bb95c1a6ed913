package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.TimeoutOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Faults on a server of its own (each test pauses it). */
class EtcdFaultIT {
    private EtcdTestServer server;

    @BeforeEach
    void start() {
        server = EtcdTestServer.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private EtcdLockProvider client(Duration leaseTime) {
        return EtcdLockProvider.builder()
                .endpoints(server.endpoint())
                .options(EtcdLockOptions.builder()
                        .timeouts(TimeoutOptions.of(Duration.ofSeconds(2)))
                        .build())
                .lockOptions(
                        LockOptions.defaults().mutate().leaseTime(leaseTime).build())
                .build();
    }

    @Test
    void serverPaused_keepaliveStalls_lostSignalFiresByValidityDeadline() throws Exception {
        try (EtcdLockProvider a = client(Duration.ofSeconds(1))) {
            Lease held = a.lock("paused").acquire();
            // the deadline only moves forward; read it just before the pause
            long deadline = System.nanoTime() + held.remainingValidity().toNanos();
            server.pause(true);
            try {
                LeaseLostException lost = held.lost().toCompletableFuture().get(3, TimeUnit.SECONDS);
                long firedAt = System.nanoTime();
                assertThat(lost).isNotNull();
                // at the latest one keepalive interval (leaseTime/3) after the deadline seen before the
                // pause, plus scheduling slack: the deadline itself never moves past lastSent + leaseTime
                assertThat((firedAt - deadline) / 1_000_000).isLessThan(400 + 200);
                assertThat(held.isValid()).isFalse();
            } finally {
                server.pause(false);
            }
        }
    }

    @Test
    void releaseTimesOut_sessionAlive_keyDeletedInBackgroundLockFreed() throws Exception {
        // a release whose delete times out (a leader election) must not leave the key on the live
        // session lease, where the keepalive would keep the lock blocked for as long as the provider lives
        try (EtcdLockProvider a = EtcdLockProvider.builder()
                        .endpoints(server.endpoint())
                        .options(EtcdLockOptions.builder()
                                .timeouts(TimeoutOptions.of(Duration.ofMillis(300)))
                                .build())
                        .lockOptions(LockOptions.defaults()
                                .mutate()
                                .leaseTime(Duration.ofSeconds(10))
                                .build())
                        .build();
                EtcdLockProvider b = client(Duration.ofSeconds(10))) {
            Lease held = a.lock("stranded").acquire();
            b.lock("warm").tryAcquire().orElseThrow().release();
            server.pause(true);
            try {
                assertThatThrownBy(held::release).isInstanceOf(BackendUnavailableException.class);
            } finally {
                server.pause(false);
            }
            // a's session is alive (10 s lease, kept alive), so only a delete frees the lock: well
            // before the session could expire, b gets it
            long t0 = System.nanoTime();
            Lease next = b.lock("stranded")
                    .tryAcquire(Duration.ofSeconds(5))
                    .orElseThrow(() -> new AssertionError("the released key was left on the live session"));
            assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(5_000);
            assertThat(next.release()).isTrue();
            // and a still works
            a.lock("stranded").tryAcquire().orElseThrow().release();
        }
    }

    @Test
    void serverPaused_waiter_givesUpWithinItsBudget() throws Exception {
        try (EtcdLockProvider a = client(Duration.ofSeconds(1));
                EtcdLockProvider b = client(Duration.ofSeconds(1))) {
            Lease held = a.lock("paused-wait").acquire();
            b.lock("warm").tryAcquire().orElseThrow().release();
            server.pause(true);
            long t0 = System.nanoTime();
            try {
                b.lock("paused-wait").tryAcquire(Duration.ofMillis(500));
            } catch (io.distlock.BackendUnavailableException expected) {
                // a request timed out: also a bounded outcome
            } finally {
                server.pause(false);
            }
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            // bounded by the request timeout (2 s) plus the abandon's delete (2 s), never hanging
            assertThat(tookMs).isLessThan(5_000);
            held.release();
        }
    }

    @Test
    void keepaliveTrafficCutByProxy_lostByDeadline_beforeServerExpiresLease() throws Exception {
        String hostPort = server.endpoint().replace("http://", "");
        int colon = hostPort.lastIndexOf(':');
        try (io.distlock.testing.faults.TcpProxy proxy = io.distlock.testing.faults.TcpProxy.start(
                        hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
                io.etcd.jetcd.Client admin = io.etcd.jetcd.Client.builder()
                        .endpoints(server.endpoint())
                        .build();
                EtcdLockProvider a = EtcdLockProvider.builder()
                        .endpoints("http://" + proxy.address())
                        .options(EtcdLockOptions.builder()
                                .timeouts(TimeoutOptions.of(Duration.ofSeconds(2)))
                                .build())
                        .lockOptions(LockOptions.defaults()
                                .mutate()
                                .leaseTime(Duration.ofSeconds(2))
                                .build())
                        .build()) {
            Lease held = a.lock("cut").acquire();
            long deadline = System.nanoTime() + held.remainingValidity().toNanos();
            proxy.blackhole(io.distlock.testing.faults.TcpProxy.Direction.BOTH);
            try {
                held.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
                long lateMs = (System.nanoTime() - deadline) / 1_000_000;
                // the deadline read before the cut; later by at most one keepalive interval (667 ms)
                assertThat(lateMs).isLessThan(667 + 300);
                long keys = admin.getKVClient()
                        .get(
                                EtcdDriverTestKeys.bytes("/distlock/"),
                                io.etcd.jetcd.options.GetOption.builder()
                                        .isPrefix(true)
                                        .withCountOnly(true)
                                        .build())
                        .get(2, TimeUnit.SECONDS)
                        .getCount();
                assertThat(keys)
                        .as("our key is still on the server when the loss is signalled")
                        .isEqualTo(1);
            } finally {
                proxy.resume();
            }
        }
    }
}
