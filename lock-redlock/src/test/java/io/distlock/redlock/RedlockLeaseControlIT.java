package io.distlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockProvider;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Lease control on Redlock, read on the nodes themselves: the time to live that {@code extend} and
 * {@code releaseAfter} set on every node, the majority rule of an extension, and the shortest lease
 * time a Redlock provider can hold (more than twice its node timeout).
 */
class RedlockLeaseControlIT {
    private static final Duration NODE_TIMEOUT = Duration.ofMillis(100);

    private static RedisServers nodes;
    private static RedlockLockProvider a;
    private static RedlockLockProvider b;

    @BeforeAll
    static void start() {
        nodes = RedisServers.independentMasters(3);
        a = open();
        b = open();
    }

    private static RedlockLockProvider open() {
        return RedlockLockProvider.builder()
                .nodes(List.of(nodes.addresses().split(",")))
                .options(RedlockLockOptions.builder().nodeTimeout(NODE_TIMEOUT).build())
                .leaseTime(Duration.ofSeconds(2))
                .build();
    }

    @AfterAll
    static void stop() {
        for (LockProvider p : new LockProvider[] {a, b}) {
            if (p != null) {
                p.close();
            }
        }
        if (nodes != null) {
            nodes.close();
        }
    }

    @Test
    void capabilities_leaseTimingIsServer() {
        assertThat(a.capabilities().leaseTiming()).isEqualTo(Capabilities.LeaseTiming.SERVER);
    }

    @Test
    void withLeaseTime_notMoreThanTwiceTheNodeTimeout_rejectedNamingTheMinimum() {
        assertThatThrownBy(() -> a.lock("lease/short")
                        .withLeaseTime(Duration.ofMillis(200))
                        .tryAcquire())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime must be more than 2 × nodeTimeout")
                .hasMessageContaining("more than 200 ms (nodeTimeout 100 ms)")
                .hasMessageContaining("(was PT0.2S)");
        Lease lease = a.lock("lease/short")
                .withLeaseTime(Duration.ofMillis(201))
                .withAutoRenew(false)
                .tryAcquire()
                .orElseThrow();
        assertThatThrownBy(() -> lease.extend(Duration.ofMillis(150)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("more than 200 ms");
        assertThat(lease.isValid()).as("the lease after a rejected extension").isTrue();
        assertThat(lease.release()).isTrue();
    }

    @Test
    void withLeaseTime_handleLease_isEveryNodesTimeToLive() throws IOException {
        String name = "lease/handle";
        Lease lease = a.lock(name)
                .withLeaseTime(Duration.ofMillis(700))
                .withAutoRenew(false)
                .tryAcquire()
                .orElseThrow();
        for (long pttl : pttls(name)) {
            assertThat(pttl).isBetween(1L, 700L);
        }
        assertThat(lease.release()).isTrue();
    }

    @Test
    void extend_setsEveryNodesTimeToLiveAndTheValidityFromBeforeTheRound() throws IOException {
        String name = "lease/extend";
        Lease lease = a.lock(name).withAutoRenew(false).tryAcquire().orElseThrow();
        lease.extend(Duration.ofSeconds(20));
        // validity: 20 s less the drift (1 % + 2 ms), counted from before the round
        assertThat(lease.remainingValidity()).isBetween(Duration.ofMillis(18_798), Duration.ofMillis(19_798));
        for (long pttl : pttls(name)) {
            assertThat(pttl).isBetween(18_000L, 20_000L);
        }
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        assertThat(lease.release()).isTrue();
    }

    @Test
    void extend_ourValueGoneFromOneNode_extendsOnTheMajority() throws IOException {
        String name = "lease/extend-minority-lost";
        Lease lease = a.lock(name).withAutoRenew(false).tryAcquire().orElseThrow();
        nodes.get(0).call("DEL", RedlockTestAccess.lockKey(a, name));
        lease.extend(Duration.ofSeconds(10));
        assertThat(lease.remainingValidity()).isGreaterThan(Duration.ofSeconds(9));
        assertThat(lease.release()).isTrue();
    }

    @Test
    void extend_ourValueGoneFromAMajority_leaseLost() throws IOException {
        String name = "lease/extend-majority-lost";
        Lease lease = a.lock(name).withAutoRenew(false).tryAcquire().orElseThrow();
        for (int i = 0; i < 2; i++) {
            nodes.get(i).call("DEL", RedlockTestAccess.lockKey(a, name));
        }
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(10))).isInstanceOf(LeaseLostException.class);
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.lost().toCompletableFuture()).isDone();
        // the node that still held our value: release() deletes it there (owner-only)
        assertThat(lease.release()).as("release() of the lost lease").isFalse();
        assertThat(pttls(name)).containsOnly(-2L);
    }

    @Test
    void extend_majorityUnreachable_outcomeUnknownAndTheOldValidityKept() throws Exception {
        try (RedisServers three = RedisServers.independentMasters(3);
                RedlockLockProvider p = RedlockLockProvider.builder()
                        .nodes(List.of(three.addresses().split(",")))
                        .options(RedlockLockOptions.builder()
                                .nodeTimeout(NODE_TIMEOUT)
                                .build())
                        .leaseTime(Duration.ofSeconds(5))
                        .build()) {
            Lease lease = p.lock("lease/unreachable")
                    .withAutoRenew(false)
                    .tryAcquire()
                    .orElseThrow();
            three.get(0).kill();
            three.get(1).kill();
            assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(30)))
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("cannot extend lock 'lease/unreachable'")
                    .hasMessageContaining("did not answer");
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.remainingValidity()).as("the old validity").isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void releaseAfter_everyNodeKeepsTheLockForTheDelay() throws Exception {
        String name = "lease/release-after";
        Lease lease = a.lock(name).tryAcquire().orElseThrow();
        assertThat(lease.releaseAfter(Duration.ofMillis(1_500))).isTrue();
        for (long pttl : pttls(name)) {
            assertThat(pttl).isBetween(1_000L, 1_500L);
        }
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        Lease next = b.lock(name).tryAcquire(Duration.ofSeconds(3)).orElseThrow();
        assertThat(next.release()).isTrue();
    }

    /** The lock key's remaining time to live on each node, in ms. */
    private static List<Long> pttls(String name) throws IOException {
        String key = RedlockTestAccess.lockKey(a, name);
        List<Long> out = new java.util.ArrayList<>();
        for (RedisServer n : nodes.servers()) {
            out.add(Long.parseLong(n.call("PTTL", key).trim()));
        }
        return out;
    }
}
