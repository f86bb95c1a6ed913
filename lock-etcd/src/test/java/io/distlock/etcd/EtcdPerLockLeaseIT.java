package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.etcd.jetcd.KeyValue;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code perLockLease(true)}: one etcd lease per acquisition, each kept alive by the session thread. */
class EtcdPerLockLeaseIT {

    private static EtcdTestServer server;
    private static EtcdTckFixture fixture;

    @BeforeAll
    static void start() {
        server = EtcdTestServer.start();
        fixture = new EtcdTckFixture(List.of(server.endpoint()), server, true);
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private static EtcdLockProvider client() {
        return fixture.newClient(
                LockOptions.defaults().mutate().leaseTime(Duration.ofSeconds(2)).build());
    }

    private static String name() {
        return "per-lock-" + UUID.randomUUID();
    }

    private static long leaseOf(String lockName) {
        List<KeyValue> kvs = fixture.keys(lockName);
        assertThat(kvs).hasSize(1);
        return kvs.get(0).getLease();
    }

    @Test
    void acquire_twoLocksOfOneProvider_eachHasItsOwnLeaseNotTheSession() throws Exception {
        try (EtcdLockProvider p = client()) {
            String a = name();
            String b = name();
            try (Lease la = p.lock(a).acquire();
                    Lease lb = p.lock(b).acquire()) {
                long leaseA = leaseOf(a);
                long leaseB = leaseOf(b);
                assertThat(leaseA).isNotZero().isNotEqualTo(leaseB);
                assertThat(p.sessionLeaseId()).isEqualTo(-1L); // no session lease is granted
                assertThat(la.isValid()).isTrue();
                assertThat(lb.isValid()).isTrue();
            }
            assertThat(fixture.keys(a)).isEmpty();
            assertThat(fixture.keys(b)).isEmpty();
        }
    }

    @Test
    void expireLease_oneOfTwoLocks_onlyThatLockIsLost() throws Exception {
        try (EtcdLockProvider p = client();
                EtcdLockProvider other = client()) {
            String a = name();
            String b = name();
            Lease la = p.lock(a).acquire();
            Lease lb = p.lock(b).acquire();
            fixture.expireLease(a);
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> la.lost().toCompletableFuture().isDone());
            assertThat(la.isValid()).isFalse();
            assertThat(lb.isValid()).isTrue();
            assertThat(lb.lost().toCompletableFuture().isDone()).isFalse();
            Lease next = other.lock(a).tryAcquire().orElseThrow();
            assertThat(next.fencingToken().getAsLong())
                    .isGreaterThan(la.fencingToken().getAsLong());
            assertThat(other.lock(b).tryAcquire()).isEmpty();
            next.release();
            lb.release();
        }
    }

    @Test
    void uncontended_acquireIsLeaseGrantAndTxn_releaseIsOneRevoke() throws Exception {
        try (EtcdLockProvider p = client()) {
            p.lock("warm-up").tryAcquire().orElseThrow().release();
            Map<String, Long> m0 = server.received();
            Lease l = p.lock(name()).tryAcquire().orElseThrow();
            Map<String, Long> m1 = server.received();
            l.release();
            Map<String, Long> m2 = server.received();
            Map<String, Long> acquire = EtcdTestServer.diff(m0, m1);
            Map<String, Long> release = EtcdTestServer.diff(m1, m2);
            System.out.println("etcd per-lock lease: requests per acquire " + acquire + ", per release " + release);
            assertThat(acquire).containsEntry("LeaseGrant", 1L).containsEntry("Txn", 1L);
            assertThat(acquire).doesNotContainKeys("Range", "DeleteRange", "Put", "LeaseRevoke");
            assertThat(release).containsEntry("LeaseRevoke", 1L);
            assertThat(release).doesNotContainKeys("Range", "Txn", "DeleteRange", "LeaseGrant");
        }
    }

    @Test
    void hold_fiveLocksForSeveralLeaseTimes_eachLeaseRenewedAndAllStayValid() throws Exception {
        try (EtcdLockProvider p = client()) {
            p.lock("warm-up").tryAcquire().orElseThrow().release();
            Lease[] held = new Lease[5];
            for (int i = 0; i < held.length; i++) {
                held[i] = p.lock(name()).acquire();
            }
            long keepalivesBefore = server.received().getOrDefault("LeaseKeepAlive", 0L);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        for (Lease l : held) {
                            assertThat(l.isValid()).isTrue();
                        }
                        return System.nanoTime() - until > 0;
                    });
            long keepalives = server.received().getOrDefault("LeaseKeepAlive", 0L) - keepalivesBefore;
            // every lease was renewed: 5 locks held for 5 s with a keepalive every 2 s / 3
            assertThat(keepalives).isGreaterThanOrEqualTo(5 * 5);
            for (Lease l : held) {
                assertThat(l.release()).isTrue();
            }
        }
    }

    @Test
    void close_provider_revokesEveryLockLease() throws Exception {
        String a = name();
        EtcdLockProvider p = client();
        p.lock(a).acquire();
        long lease = leaseOf(a);
        p.close();
        assertThat(fixture.keys(a)).isEmpty();
        assertThat(fixture.admin()
                        .getLeaseClient()
                        .timeToLive(lease, io.etcd.jetcd.options.LeaseOption.DEFAULT)
                        .get(5, TimeUnit.SECONDS)
                        .getTTL())
                .isEqualTo(-1L);
    }

    @Test
    void open_uriWithPerLockLease_givesPerLockLeases() throws Exception {
        String a = name();
        try (LockProvider p = LockProviders.open(URI.create(
                server.endpoint().replace("http://", "etcd://") + EtcdTckFixture.PREFIX + "?perLockLease=true"))) {
            assertThat(((EtcdLockProvider) p).options().perLockLease()).isTrue();
            try (Lease l = p.lock(a).acquire()) {
                assertThat(leaseOf(a)).isNotZero();
                assertThat(((EtcdLockProvider) p).sessionLeaseId()).isEqualTo(-1L);
            }
        }
    }
}
