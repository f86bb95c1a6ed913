package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.TimeoutOptions;
import io.distlock.testing.faults.TcpProxy;
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
        return client(server.endpoint(), leaseTime);
    }

    private static EtcdLockProvider client(String endpoint, Duration leaseTime) {
        return EtcdLockProvider.builder()
                .endpoints(endpoint)
                .options(EtcdLockOptions.builder()
                        .timeouts(TimeoutOptions.of(Duration.ofSeconds(2)))
                        .build())
                .lockOptions(
                        LockOptions.defaults().mutate().leaseTime(leaseTime).build())
                .build();
    }

    /** A TCP proxy in front of {@code server}. */
    private static TcpProxy proxyTo(EtcdTestServer server) {
        String hostPort = server.endpoint().replace("http://", "");
        int colon = hostPort.lastIndexOf(':');
        return TcpProxy.start(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
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
    void releaseAfterTheLeaseRanOut_returnsOnceTheClientsRevokeFreedTheLock() throws Exception {
        // A handle lease without renewal hangs on a lease of its own (TTL rounded up to 3 s), which
        // the client revokes when its 2.5 s run out. A release() after that loss returns only once
        // that revoke was answered: the lock is free when it returns, long before the server's TTL
        // would have freed it. The proxy delays the holder's traffic by 150 ms each way.
        try (TcpProxy proxy = proxyTo(server);
                EtcdLockProvider a = client("http://" + proxy.address(), Duration.ofSeconds(10));
                EtcdLockProvider b = client(Duration.ofSeconds(10))) {
            b.lock("warm").tryAcquire().orElseThrow().release();
            Lease held = a.lock("ran-out")
                    .withLeaseTime(Duration.ofMillis(2_500))
                    .withAutoRenew(false)
                    .acquire();
            proxy.setLatency(Duration.ofMillis(150));
            held.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(held.release()).as("release() of a lease that ran out").isFalse();
            assertThat(b.lock("ran-out").tryAcquire())
                    .as("another client's tryAcquire right after release() returned")
                    .isPresent()
                    .get()
                    .satisfies(l -> assertThat(l.release()).isTrue());
        }
    }

    @Test
    void handleLeaseWithoutRenewal_countsFromTheAcquiringTransactionNotTheGrant() throws Exception {
        // A 1.5 s handle lease without renewal hangs on a lease of its own (TTL 2 s): one grant,
        // then the transaction that takes the lock, each a 500 ms round trip through the proxy. The
        // lock's time counts from the transaction (the server keeps the lease 2 s from the grant),
        // so about 1.5 s - margin - 0.5 s is left when tryAcquire returns, not 1.5 s - margin - 1 s;
        // and never more than the time left after the transaction's round trip.
        try (TcpProxy proxy = proxyTo(server);
                EtcdLockProvider a = client("http://" + proxy.address(), Duration.ofSeconds(10))) {
            a.lock("warm").tryAcquire().orElseThrow().release();
            proxy.setLatency(Duration.ofMillis(250));
            Duration leaseTime = Duration.ofMillis(1_500);
            Duration margin =
                    LockOptions.defaults().mutate().leaseTime(leaseTime).build().safetyMargin();
            Lease held = a.lock("counted")
                    .withLeaseTime(leaseTime)
                    .withAutoRenew(false)
                    .tryAcquire()
                    .orElseThrow();
            Duration left = held.remainingValidity();
            assertThat(left)
                    .as("validity left after a grant and a transaction of 500 ms each")
                    .isGreaterThan(leaseTime.minus(margin).minusMillis(500 + 300))
                    .isLessThanOrEqualTo(leaseTime.minus(margin).minusMillis(500));
            proxy.setLatency(Duration.ZERO);
            held.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(held.isValid()).isFalse();
        }
    }

    @Test
    void keepaliveTrafficCutByProxy_lostByDeadline_beforeServerExpiresLease() throws Exception {
        try (TcpProxy proxy = proxyTo(server);
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
            proxy.blackhole(TcpProxy.Direction.BOTH);
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
