package io.distlock.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.Capabilities;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.ReentrantLockProvider;
import io.distlock.spi.FaultHooks;
import io.distlock.spi.LockEngine;
import io.distlock.spi.RenewalMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Lease control: a lease time per handle, extension by the owner, a delayed release, and "expiry
 * means free" — against a server that keeps lease times (the in-JVM server) and against one whose
 * locks live as long as the client's session ({@link EngineKeptDriver}), where the engine keeps them.
 */
class LeaseControlTest {
    private final MemoryLockServer server = MemoryLockServer.create();
    private final List<LockProvider> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(LockProvider::close);
    }

    private LockProvider memory() {
        LockProvider p = MemoryLockProvider.builder()
                .server(server)
                .options(LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build())
                .build();
        clients.add(p);
        return p;
    }

    private LockProvider session() {
        LockProvider p = LockEngine.create(
                new EngineKeptDriver(server, RenewalMode.SESSION, TimeUnit.HOURS.toNanos(1)),
                LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build());
        clients.add(p);
        return p;
    }

    private static long millisSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    @Test
    void withLeaseTime_shortLeaseWithoutRenewal_expiresOnTheServerAndIsFreeForOthers() throws Exception {
        LockProvider a = memory();
        LockProvider b = memory();
        DistributedLock shortLock =
                a.lock("job").withLeaseTime(Duration.ofMillis(300)).withAutoRenew(false);
        long start = System.nanoTime();
        Lease lease = shortLock.tryAcquire().orElseThrow();
        assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofMillis(300));
        assertThat(b.lock("job").tryAcquire()).isEmpty();
        Lease next = b.lock("job").tryAcquire(Duration.ofSeconds(3)).orElseThrow();
        assertThat(millisSince(start)).isBetween(250L, 1_500L);
        assertThat(lease.isValid()).isFalse();
        assertThat(next.fencingToken().getAsLong())
                .isGreaterThan(lease.fencingToken().getAsLong());
    }

    @Test
    void withLeaseTime_badValue_namesLeaseTime_andHandlesAreCheap() {
        DistributedLock lock = memory().lock("job");
        assertThatThrownBy(() -> lock.withLeaseTime(Duration.ofMillis(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime must be between");
        assertThatThrownBy(() -> lock.withLeaseTime(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("leaseTime");
        assertThat(lock.withLeaseTime(Duration.ofSeconds(30))).isSameAs(lock);
        assertThat(lock.withAutoRenew(true)).isSameAs(lock);
        assertThat(lock.withLeaseTime(Duration.ofSeconds(5)).name()).isEqualTo("job");
    }

    @Test
    void extend_byOwner_keepsTheLockPastItsLeaseTime() throws Exception {
        LockProvider a = memory();
        LockProvider b = memory();
        Lease lease = a.lock("job")
                .withLeaseTime(Duration.ofMillis(300))
                .withAutoRenew(false)
                .tryAcquire()
                .orElseThrow();
        lease.extend(Duration.ofSeconds(2));
        assertThat(lease.remainingValidity()).isGreaterThan(Duration.ofMillis(1_500));
        assertThat(b.lock("job").tryAcquire(Duration.ofMillis(600)))
                .as("held past 300 ms")
                .isEmpty();
        assertThat(lease.isValid()).isTrue();
        assertThatThrownBy(() -> lease.extend(Duration.ofMillis(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime");
    }

    @Test
    void extend_afterTheServerDroppedTheLease_throwsLeaseLostAndReportsTheLoss() {
        LockProvider a = memory();
        Lease lease = a.lock("job").tryAcquire().orElseThrow();
        server.expire("job");
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(5)))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("owned by another client");
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.lost().toCompletableFuture().join()).isInstanceOf(LeaseLostException.class);
        assertThat(lease.release()).isFalse();
    }

    @Test
    void extend_afterRelease_throwsLeaseLost_withoutAskingTheServer() {
        Lease lease = memory().lock("job").tryAcquire().orElseThrow();
        lease.release();
        long requests = server.requests();
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(5)))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("lease was released");
        assertThat(server.requests()).isEqualTo(requests);
    }

    @Test
    void extend_toLessTimeThanWasLeft_lossReportedAtTheNewDeadline() throws Exception {
        Lease lease = memory().lock("job").withAutoRenew(false).tryAcquire().orElseThrow();
        lease.extend(Duration.ofMillis(300));
        assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofMillis(300));
        // not at the 30 s deadline the lease had before
        assertThat(lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isInstanceOf(LeaseLostException.class);
    }

    @Test
    void releaseAfter_serverKept_lockStaysTakenForTheDelayEvenIfTheHolderCrashes() throws Exception {
        LockProvider a = memory();
        LockProvider b = memory();
        Lease lease = a.lock("job").tryAcquire().orElseThrow();
        long start = System.nanoTime();
        assertThat(lease.releaseAfter(Duration.ofMillis(400))).isTrue();
        assertThat(lease.isValid()).isFalse();
        assertThat(a.heldLeases()).isEmpty();
        assertThatThrownBy(() -> lease.lost().toCompletableFuture().join()).isInstanceOf(CompletionException.class);
        a.unwrap(FaultHooks.class).orElseThrow().simulateCrash();
        assertThat(b.lock("job").tryAcquire()).isEmpty();
        Lease next = b.lock("job").tryAcquire(Duration.ofSeconds(3)).orElseThrow();
        assertThat(millisSince(start)).isBetween(350L, 1_500L);
        assertThat(next.isValid()).isTrue();
    }

    @Test
    void releaseAfter_lockDroppedByTheServerMeanwhile_answersFalse_andLeavesTheNextHolderAlone() {
        LockProvider a = memory();
        LockProvider b = memory();
        Lease lease = a.lock("job").tryAcquire().orElseThrow();
        server.expire("job");
        Lease next = b.lock("job").tryAcquire().orElseThrow();

        assertThat(lease.releaseAfter(Duration.ofSeconds(5))).isFalse();
        assertThat(next.isValid()).isTrue();
        assertThat(next.release()).isTrue();
    }

    @Test
    void releaseAfter_zeroDelay_releasesAtOnce_andAfterReleaseReturnsFalse() {
        LockProvider a = memory();
        Lease lease = a.lock("job").tryAcquire().orElseThrow();
        assertThat(lease.releaseAfter(Duration.ZERO)).isTrue();
        assertThat(memory().lock("job").tryAcquire()).isPresent();
        assertThat(lease.releaseAfter(Duration.ofSeconds(1))).isFalse();
        assertThat(lease.releaseAfter(Duration.ZERO)).isFalse();
    }

    @Test
    void capabilities_leaseTiming_declared() {
        assertThat(memory().capabilities().leaseTiming()).isEqualTo(Capabilities.LeaseTiming.SERVER);
        assertThat(session().capabilities().leaseTiming()).isEqualTo(Capabilities.LeaseTiming.CLIENT);
    }

    @Test
    void reentrantDecorator_passesLeaseControlThrough() throws Exception {
        LockProvider a = ReentrantLockProvider.wrap(memory());
        LockProvider b = memory();
        Lease outer = a.lock("job")
                .withLeaseTime(Duration.ofMillis(300))
                .withAutoRenew(false)
                .tryAcquire()
                .orElseThrow();
        Lease nested = a.lock("job").tryAcquire().orElseThrow();
        nested.extend(Duration.ofSeconds(2));
        assertThat(outer.remainingValidity()).isGreaterThan(Duration.ofSeconds(1));
        assertThat(nested.releaseAfter(Duration.ofSeconds(5)))
                .as("a nested lease just leaves")
                .isTrue();
        assertThat(outer.isValid()).isTrue();
        assertThat(outer.releaseAfter(Duration.ofMillis(200))).isTrue();
        assertThat(b.lock("job").tryAcquire()).isEmpty();
        assertThat(b.lock("job").tryAcquire(Duration.ofSeconds(3))).isPresent();
    }

    /** A backend whose locks live as long as the client's session: the engine keeps lease times. */
    @Nested
    class ClientKeptLeaseTimes {

        @Test
        void noRenewal_leaseRunsOut_engineFreesTheLockOnTheServer() throws Exception {
            LockProvider a = session();
            LockProvider b = session();
            assertThat(a.capabilities().automaticRenewal()).isTrue();
            long start = System.nanoTime();
            Lease lease = a.lock("job")
                    .withLeaseTime(Duration.ofMillis(300))
                    .withAutoRenew(false)
                    .tryAcquire()
                    .orElseThrow();
            assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofMillis(300));
            Lease next = b.lock("job").tryAcquire(Duration.ofSeconds(3)).orElseThrow();
            assertThat(millisSince(start)).isBetween(250L, 1_500L);
            assertThat(lease.isValid()).isFalse();
            assertThat(lease.lost().toCompletableFuture().join()).isInstanceOf(LeaseLostException.class);
            assertThat(next.isValid()).isTrue();
        }

        @Test
        void providerWithoutRenewal_declaresNoAutomaticRenewal() {
            LockProvider p = LockEngine.create(
                    new EngineKeptDriver(server, RenewalMode.SESSION, TimeUnit.HOURS.toNanos(1)),
                    LockOptions.builder().autoRenew(false).build());
            clients.add(p);
            assertThat(p.capabilities().automaticRenewal()).isFalse();
        }

        @Test
        void extend_movesTheClientKeptDeadline() throws Exception {
            LockProvider a = session();
            LockProvider b = session();
            Lease lease = a.lock("job")
                    .withLeaseTime(Duration.ofMillis(300))
                    .withAutoRenew(false)
                    .tryAcquire()
                    .orElseThrow();
            lease.extend(Duration.ofSeconds(1));
            assertThat(b.lock("job").tryAcquire(Duration.ofMillis(500))).isEmpty();
            assertThat(lease.isValid()).isTrue();
            assertThat(b.lock("job").tryAcquire(Duration.ofSeconds(3))).isPresent();
        }

        @Test
        void releaseAfter_clientKept_holdsForTheDelay_thenFrees() throws Exception {
            LockProvider a = session();
            LockProvider b = session();
            Lease lease = a.lock("job").tryAcquire().orElseThrow();
            long start = System.nanoTime();
            assertThat(lease.releaseAfter(Duration.ofMillis(400))).isTrue();
            assertThat(lease.isValid()).isFalse();
            assertThat(a.heldLeases()).isEmpty();
            assertThat(b.lock("job").tryAcquire()).isEmpty();
            b.lock("job").tryAcquire(Duration.ofSeconds(3)).orElseThrow();
            assertThat(millisSince(start)).isBetween(350L, 1_500L);
        }

        @Test
        void releaseAfter_clientKept_closingTheProviderFreesTheLockEarly() throws Exception {
            LockProvider a = session();
            LockProvider b = session();
            a.lock("job").tryAcquire().orElseThrow().releaseAfter(Duration.ofSeconds(30));
            assertThat(b.lock("job").tryAcquire()).isEmpty();
            a.close();
            await().atMost(Duration.ofSeconds(2))
                    .until(() -> b.lock("job").tryAcquire().isPresent());
        }
    }
}
