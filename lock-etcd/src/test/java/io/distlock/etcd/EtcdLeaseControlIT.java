package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Capabilities;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.spi.FaultHooks;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.options.LeaseOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lease control on etcd beyond the TCK's section 13: etcd keeps each lock's time on the server
 * ({@link Capabilities.LeaseTiming#SERVER}). A handle whose lease time or renewal differs from the
 * session's gets a lease of its own with that TTL; an extension and a delayed release move the key
 * to a new lease, keeping its create revision (the fencing token).
 */
@Timeout(60)
class EtcdLeaseControlIT {
    /** A provider whose session lease would keep a crashed holder's lock for 30 s. */
    private static final LockOptions LONG_SESSION = LockOptions.defaults();

    private static EtcdTestServer server;
    private static EtcdTckFixture fixture;

    @BeforeAll
    static void start() {
        server = EtcdTestServer.start();
        fixture = new EtcdTckFixture(List.of(server.endpoint()), server);
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private static String name() {
        return "lease-control-" + UUID.randomUUID();
    }

    private static KeyValue holderKey(String lockName) {
        List<KeyValue> kvs = fixture.keys(lockName);
        assertThat(kvs).as("keys of %s", lockName).isNotEmpty();
        return kvs.get(0);
    }

    private static LeaseTimeToLiveResponse timeToLive(long leaseId) throws Exception {
        return fixture.admin()
                .getLeaseClient()
                .timeToLive(leaseId, LeaseOption.DEFAULT)
                .get(5, TimeUnit.SECONDS);
    }

    private static long grantedTtl(long leaseId) throws Exception {
        return timeToLive(leaseId).getGrantedTTL();
    }

    /** Whether the server no longer has lease {@code leaseId} (revoked or expired). */
    private static boolean gone(long leaseId) throws Exception {
        return timeToLive(leaseId).getTTL() < 0;
    }

    private static void crash(EtcdLockProvider p) {
        p.unwrap(FaultHooks.class).orElseThrow().simulateCrash();
    }

    private static Duration since(long t0) {
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    /**
     * Asserts that {@code client} cannot take lock {@code name} until {@code takenFor} after {@code
     * t0}, then takes it within {@code freeWithin} of {@code t0}, and returns that lease.
     */
    private static Lease takenThenFree(
            EtcdLockProvider client, String name, long t0, Duration takenFor, Duration freeWithin, String what)
            throws InterruptedException {
        await(what)
                .during(takenFor.minus(since(t0)))
                .atMost(takenFor.plusMillis(500))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> client.lock(name).tryAcquire().isEmpty());
        Lease next = client.lock(name).tryAcquire(freeWithin).orElseThrow();
        assertThat(since(t0)).as("time until %s", what).isLessThan(freeWithin);
        return next;
    }

    @Test
    void capabilities_declareServerLeaseTiming() {
        try (EtcdLockProvider p = fixture.newClient(LONG_SESSION)) {
            assertThat(p.capabilities().leaseTiming()).isEqualTo(Capabilities.LeaseTiming.SERVER);
        }
    }

    @Test
    void autoRenewOff_declaresNoRenewal_keyOnALeaseOfItsLeaseTime_whichEndsOnTheServer() throws Exception {
        LockOptions noRenewal = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(2))
                .autoRenew(false)
                .build();
        try (EtcdLockProvider a = fixture.newClient(noRenewal);
                EtcdLockProvider b = fixture.newClient(LONG_SESSION)) {
            assertThat(a.capabilities().automaticRenewal()).isFalse();
            String name = name();
            long t0 = System.nanoTime();
            Lease held = a.lock(name).tryAcquire().orElseThrow();
            long lease = holderKey(name).getLease();
            assertThat(a.sessionLeaseId()).as("no session lease is granted").isEqualTo(-1L);
            assertThat(grantedTtl(lease)).isEqualTo(2);
            held.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            Lease next = b.lock(name).tryAcquire(Duration.ofSeconds(3)).orElseThrow();
            assertThat(since(t0)).isLessThan(Duration.ofMillis(2900));
            assertThat(gone(lease)).isTrue();
            assertThat(held.release()).isFalse();
            assertThat(next.release()).isTrue();
        }
    }

    @Test
    void defaultHandle_keyOnTheSessionLease_otherHandle_keyOnALeaseOfItsOwnWithItsTtl() throws Exception {
        try (EtcdLockProvider p = fixture.newClient(LONG_SESSION)) {
            String common = name();
            String own = name();
            try (Lease a = p.lock(common).tryAcquire().orElseThrow();
                    Lease b = p.lock(own)
                            .withLeaseTime(Duration.ofSeconds(3))
                            .withAutoRenew(false)
                            .tryAcquire()
                            .orElseThrow()) {
                assertThat(holderKey(common).getLease()).isEqualTo(p.sessionLeaseId());
                long lease = holderKey(own).getLease();
                assertThat(lease).isNotEqualTo(p.sessionLeaseId()).isNotZero();
                assertThat(grantedTtl(lease)).isEqualTo(3);
                assertThat(grantedTtl(p.sessionLeaseId())).isEqualTo(30);
                assertThat(a.isValid()).isTrue();
                assertThat(b.remainingValidity()).isLessThanOrEqualTo(Duration.ofSeconds(3));
            }
            assertThat(fixture.keys(own)).isEmpty();
        }
    }

    @Test
    void noRenewalHandle_crashedHolder_serverKeepsTheLockForTheHandlesLeaseTimeNotTheSessions() throws Exception {
        EtcdLockProvider a = fixture.newClient(LONG_SESSION);
        try (EtcdLockProvider b = fixture.newClient(LONG_SESSION)) {
            String name = name();
            Duration leaseTime = Duration.ofSeconds(2);
            long t0 = System.nanoTime();
            a.lock(name)
                    .withLeaseTime(leaseTime)
                    .withAutoRenew(false)
                    .tryAcquire()
                    .orElseThrow();
            crash(a);
            // 2 s of TTL, plus etcd's expiry check (every 500 ms), far from the session's 30 s
            Lease next = takenThenFree(
                    b,
                    name,
                    t0,
                    Duration.ofMillis(1500),
                    Duration.ofMillis(3500),
                    "the crashed holder's lock of a 2 s lease time to be free");
            assertThat(next.release()).isTrue();
        } finally {
            a.close();
        }
    }

    @Test
    void extend_renewedLease_keyMovesToALeaseOfThatTtl_tokenKept_andACrashKeepsTheLockThatLong() throws Exception {
        EtcdLockProvider a = fixture.newClient(
                LockOptions.builder().leaseTime(Duration.ofSeconds(1)).build());
        try (EtcdLockProvider b = fixture.newClient(LONG_SESSION)) {
            String name = name();
            Lease held = a.lock(name).tryAcquire().orElseThrow();
            KeyValue before = holderKey(name);
            held.extend(Duration.ofSeconds(3));
            KeyValue after = holderKey(name);
            assertThat(after.getKey()).isEqualTo(before.getKey());
            assertThat(after.getCreateRevision()).isEqualTo(before.getCreateRevision());
            assertThat(held.fencingToken()).hasValue(before.getCreateRevision());
            assertThat(after.getLease()).isNotEqualTo(before.getLease());
            assertThat(grantedTtl(after.getLease())).isEqualTo(3);
            assertThat(after.getValue().toString(StandardCharsets.UTF_8)).isEqualTo("holder");
            // the new lease renews with the lock: valid well past the 3 s it was extended to
            await("an extended renewed lease stays valid past its new lease time")
                    .during(Duration.ofSeconds(4))
                    .atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(100))
                    .until(held::isValid);
            long t0 = System.nanoTime();
            crash(a);
            // the server keeps it for the extended time (3 s from the last keepalive), not the
            // provider's 1 s session
            Lease next = takenThenFree(
                    b,
                    name,
                    t0,
                    Duration.ofMillis(1500),
                    Duration.ofMillis(3600),
                    "the crashed holder's lock extended to 3 s to be free");
            assertThat(next.fencingToken().getAsLong()).isGreaterThan(before.getCreateRevision());
            next.release();
        } finally {
            a.close();
        }
    }

    @Test
    void extend_noRenewal_costsOneGrantAndOneTxn_andTheClientRevokesTheLeaseWhenItsTimeIsUp() throws Exception {
        try (EtcdLockProvider a = fixture.newClient(LONG_SESSION);
                EtcdLockProvider b = fixture.newClient(LONG_SESSION)) {
            String name = name();
            Lease held = a.lock(name)
                    .withLeaseTime(Duration.ofSeconds(3))
                    .withAutoRenew(false)
                    .tryAcquire()
                    .orElseThrow();
            long oldLease = holderKey(name).getLease();
            Map<String, Long> m0 = server.received();
            long t0 = System.nanoTime();
            held.extend(Duration.ofMillis(4500));
            Map<String, Long> requests = EtcdTestServer.diff(m0, server.received());
            // grant + the owner-checked move; the old lock lease is revoked in the background
            assertThat(requests).containsEntry("LeaseGrant", 1L).containsEntry("Txn", 1L);
            assertThat(requests).doesNotContainKeys("Range", "DeleteRange", "Put");
            long newLease = holderKey(name).getLease();
            assertThat(newLease).isNotEqualTo(oldLease);
            assertThat(grantedTtl(newLease)).isEqualTo(5); // 4.5 s rounded up
            await("the old lock lease is revoked").atMost(Duration.ofSeconds(2)).until(() -> gone(oldLease));
            held.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            // the client revokes the lease at the lease's end (4.5 s), before the rounded-up TTL would
            Lease next = b.lock(name).tryAcquire(Duration.ofSeconds(3)).orElseThrow();
            assertThat(since(t0)).isLessThan(Duration.ofMillis(4900));
            assertThat(held.release()).isFalse();
            assertThat(next.release()).isTrue();
        }
    }

    @Test
    void releaseAfter_keyMovedToTheDelayLease_theSameProviderDoesNotTakeItBack_thenItsSlotIsReused() throws Exception {
        try (EtcdLockProvider a = fixture.newClient(LONG_SESSION)) {
            String name = name();
            Lease held = a.lock(name).tryAcquire().orElseThrow();
            KeyValue key = holderKey(name);
            assertThat(key.getLease()).isEqualTo(a.sessionLeaseId());
            long t0 = System.nanoTime();
            assertThat(held.releaseAfter(Duration.ofSeconds(2))).isTrue();
            KeyValue lingering = holderKey(name);
            assertThat(lingering.getCreateRevision()).isEqualTo(key.getCreateRevision());
            assertThat(grantedTtl(lingering.getLease())).isEqualTo(2);
            // an attempt of the same provider must not take the lingering key for its own (its
            // name is the same session's and slot's): the lock stays taken for the delay
            Lease next = takenThenFree(
                    a,
                    name,
                    t0,
                    Duration.ofMillis(1500),
                    Duration.ofMillis(2900),
                    "the lock of a 2 s delayed release to be free for the provider that released it");
            assertThat(next.fencingToken().getAsLong()).isGreaterThan(key.getCreateRevision());
            // that attempt began during the delay: its key has another name
            assertThat(holderKey(name).getKey()).isNotEqualTo(key.getKey());
            assertThat(gone(lingering.getLease()))
                    .as("the delay lease, revoked by the client")
                    .isTrue();
            assertThat(next.release()).isTrue();
            // the delay lease's revoke gave the slot back: the first key's name is used again
            Lease again = a.lock(name).tryAcquire().orElseThrow();
            assertThat(holderKey(name).getKey()).isEqualTo(key.getKey());
            assertThat(again.release()).isTrue();
        }
    }

    @Test
    void releaseAfter_providerClosed_theLockStaysTakenForTheDelay() throws Exception {
        EtcdLockProvider a = fixture.newClient(LONG_SESSION);
        try (EtcdLockProvider b = fixture.newClient(LONG_SESSION)) {
            String name = name();
            Lease held = a.lock(name).tryAcquire().orElseThrow();
            long t0 = System.nanoTime();
            assertThat(held.releaseAfter(Duration.ofSeconds(2))).isTrue();
            a.close(); // revokes the session lease: the key no longer hangs on it
            // the server's TTL of 2 s, plus its expiry check (every 500 ms)
            Lease next = takenThenFree(
                    b,
                    name,
                    t0,
                    Duration.ofMillis(1500),
                    Duration.ofMillis(3500),
                    "the lock of a closed provider's 2 s delayed release to be free");
            assertThat(next.release()).isTrue();
        } finally {
            a.close();
        }
    }
}
