package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Capabilities;
import io.distlock.Lease;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * Lease control on ZooKeeper beyond the TCK's section 13: lease times are the client's ({@link
 * Capabilities.LeaseTiming#CLIENT}) while the node lives with the session, whose timeout stays the
 * provider's.
 */
@Timeout(60)
class ZooKeeperLeaseControlIT {
    /** Provider lease time, and so the session timeout. */
    private static final LockOptions SESSION_1S =
            LockOptions.builder().leaseTime(Duration.ofSeconds(1)).build();

    private static ZooKeeperFixture fixture;

    @BeforeAll
    static void startServer() {
        fixture = ZooKeeperFixture.singleServer();
    }

    @AfterAll
    static void stopServer() {
        fixture.close();
    }

    private static String name(TestInfo info) {
        return "lease-control/" + info.getTestMethod().orElseThrow().getName();
    }

    @Test
    void capabilities_declareClientLeaseTiming() {
        try (ZooKeeperLockProvider p = fixture.newZkClient(SESSION_1S)) {
            assertThat(p.capabilities().leaseTiming()).isEqualTo(Capabilities.LeaseTiming.CLIENT);
            assertThat(p.capabilities().automaticRenewal()).isTrue();
        }
    }

    @Test
    void handleLeaseTimeLongerThanSession_noRenewal_outlivesTheSessionTimeoutThenNodeIsDeleted(TestInfo info)
            throws Exception {
        try (ZooKeeperLockProvider a = fixture.newZkClient(SESSION_1S);
                ZooKeeperLockProvider b = fixture.newZkClient(SESSION_1S)) {
            String name = name(info);
            String path = a.internals().lockPath(name);
            long t0 = System.nanoTime();
            Lease lease = a.lock(name)
                    .withLeaseTime(Duration.ofSeconds(3))
                    .withAutoRenew(false)
                    .tryAcquire()
                    .orElseThrow();
            // two session timeouts later the lease is still valid and the node still there: the
            // session is kept alive; the handle's lease time is the client's
            await("a 3 s handle lease stays valid, its node in place, for two session timeouts")
                    .during(Duration.ofSeconds(2))
                    .atMost(Duration.ofMillis(2500))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> lease.isValid() && fixture.children(path).size() == 1);
            lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofMillis(3500));
            // the engine deleted the node: another client acquires at once, with a larger token
            await().atMost(Duration.ofSeconds(1))
                    .until(() -> fixture.children(path).isEmpty());
            Lease next = b.lock(name).tryAcquire().orElseThrow();
            assertThat(next.fencingToken().getAsLong())
                    .isGreaterThan(lease.fencingToken().getAsLong());
            assertThat(lease.release()).isFalse();
            assertThat(next.release()).isTrue();
        }
    }

    @Test
    void extend_noRenewal_keepsTheNodePastItsLeaseTime_thenTheClientDeletesIt(TestInfo info) throws Exception {
        try (ZooKeeperLockProvider a = fixture.newZkClient(SESSION_1S)) {
            String name = name(info);
            String path = a.internals().lockPath(name);
            Lease lease = a.lock(name)
                    .withLeaseTime(Duration.ofMillis(500))
                    .withAutoRenew(false)
                    .tryAcquire()
                    .orElseThrow();
            lease.extend(Duration.ofMillis(1500));
            // beyond the handle's 500 ms (and at most the session's deadline, about 1 s ahead)
            assertThat(lease.remainingValidity()).isGreaterThan(Duration.ofMillis(500));
            await("an extended lease stays valid, its node in place, past its own lease time")
                    .during(Duration.ofSeconds(1))
                    .atMost(Duration.ofMillis(1400))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> lease.isValid() && fixture.children(path).size() == 1);
            lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(1))
                    .until(() -> fixture.children(path).isEmpty());
        }
    }

    @Test
    void extend_renewedLease_checksTheOwnerAndTheLeaseGoesOnWithTheSession(TestInfo info) {
        try (ZooKeeperLockProvider a = fixture.newZkClient(SESSION_1S)) {
            String name = name(info);
            Lease lease = a.lock(name).tryAcquire().orElseThrow();
            lease.extend(Duration.ofMillis(200));
            await("a renewed lease follows the session: the extension does not end it at 200 ms")
                    .during(Duration.ofMillis(1500))
                    .atMost(Duration.ofSeconds(2))
                    .pollInterval(Duration.ofMillis(100))
                    .until(lease::isValid);
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void releaseAfter_sessionExpiresDuringTheDelay_lockIsFreeAndTheDelayedDeleteSparesTheNextHolder(TestInfo info)
            throws Exception {
        try (ZooKeeperLockProvider a = fixture.newZkClient(SESSION_1S);
                ZooKeeperLockProvider b = fixture.newZkClient(SESSION_1S)) {
            String name = name(info);
            String path = a.internals().lockPath(name);
            Lease held = a.lock(name).tryAcquire().orElseThrow();
            long t0 = System.nanoTime();
            assertThat(held.releaseAfter(Duration.ofSeconds(3))).isTrue();
            assertThat(b.lock(name).tryAcquire()).as("during the delay").isEmpty();
            // the holder's session ends: its node goes with it, the lock is free long before the delay
            fixture.expireLease(name);
            Lease next = b.lock(name).tryAcquire(Duration.ofSeconds(2)).orElseThrow();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
            List<String> nodes = fixture.children(path);
            assertThat(nodes).hasSize(1);
            // when the delay ends the first provider's delayed release finds its own node gone and
            // touches nothing else
            Duration pastDelay = Duration.ofMillis(3500).minusNanos(System.nanoTime() - t0);
            await("the next holder keeps its node past the first holder's delay")
                    .during(pastDelay)
                    .atMost(pastDelay.plusSeconds(1))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> next.isValid() && fixture.children(path).equals(nodes));
            assertThat(next.release()).isTrue();
        }
    }

    @Test
    void releaseAfter_providerClosedDuringTheDelay_nodeDeletedOnClose(TestInfo info) {
        ZooKeeperLockProvider a = fixture.newZkClient(SESSION_1S);
        try (ZooKeeperLockProvider b = fixture.newZkClient(SESSION_1S)) {
            String name = name(info);
            String path = a.internals().lockPath(name);
            Lease held = a.lock(name).tryAcquire().orElseThrow();
            assertThat(held.releaseAfter(Duration.ofSeconds(30))).isTrue();
            assertThat(fixture.children(path)).hasSize(1);
            a.close();
            assertThat(fixture.children(path)).isEmpty();
            assertThat(b.lock(name).tryAcquire()).isPresent();
        } finally {
            a.close();
        }
    }
}
