package io.distlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.fencing.InMemoryFencingGuard;
import io.distlock.fencing.StaleTokenException;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The code of this module's README, run against three real Redis masters (the snippets between
 * {@code README-BEGIN} and {@code README-END}; {@code DocsTest} checks that the README shows them).
 */
@Timeout(60)
class RedlockReadmeIT {
    private static RedisServers nodes;

    /** The lock key {@link #writeInvoice} saw. */
    private String lockKey;

    @BeforeAll
    static void start() {
        nodes = RedisServers.independentMasters(3);
    }

    @AfterAll
    static void stop() {
        if (nodes != null) {
            nodes.close();
        }
    }

    /** A Redis command's reply on every node. */
    private static List<String> onEveryNode(String... command) throws IOException {
        List<String> out = new ArrayList<>();
        for (RedisServer n : nodes.servers()) {
            out.add(n.call(command).trim());
        }
        return out;
    }

    /**
     * While the lock is held: every node holds the lock key with the 10 s lease as time to live, and
     * a majority holds the token in the lock's fencing counter.
     */
    private void writeInvoice(LockProvider locks, long token) throws IOException {
        lockKey = RedlockTestAccess.lockKey(locks, "invoice-42");
        for (String pttl : onEveryNode("PTTL", lockKey)) {
            assertThat(Long.parseLong(pttl)).isBetween(1L, 10_000L);
        }
        assertThat(onEveryNode("GET", RedlockTestAccess.tokenKey(locks, "invoice-42")))
                .as("the token on a majority of the nodes' counters")
                .filteredOn(String.valueOf(token)::equals)
                .hasSizeGreaterThanOrEqualTo(2);
    }

    @Test
    void open_builderOnThreeNodes_locksWithATokenAndReleasesEverywhere() throws Exception {
        List<String> addresses = List.of(nodes.addresses().split(","));
        InMemoryFencingGuard guard = new InMemoryFencingGuard();
        // README-BEGIN redlock-open
        try (RedlockLockProvider locks = RedlockLockProvider.builder()
                .nodes(addresses) // List.of("redis1:6379", "redis2:6379", "redis3:6379")
                .options(RedlockLockOptions.builder()
                        .nodeTimeout(Duration.ofMillis(50)) // how long a round waits for each node
                        .build())
                .lockOptions(LockOptions.builder()
                        .leaseTime(Duration.ofSeconds(10)) // every node's time to live
                        .build())
                .build()) {
            try (Lease lease = locks.lock("invoice-42").acquire()) {
                long token = lease.fencingToken().getAsLong(); // from a majority of the nodes' counters
                guard.check("invoice-42", token); // the resource refuses writes with older tokens
                writeInvoice(locks, token); // the work the lock protects
            }
        }
        // README-END
        long token = guard.lastAccepted("invoice-42").orElseThrow();
        assertThatThrownBy(() -> guard.check("invoice-42", token - 1)).isInstanceOf(StaleTokenException.class);
        // a release returns once a majority deleted the key, and closing the provider right after it
        // drops a delete still queued for a slow node (the key there ends with its lease)
        assertThat(onEveryNode("EXISTS", lockKey))
                .as("released on a majority of the nodes")
                .filteredOn("0"::equals)
                .hasSizeGreaterThanOrEqualTo(nodes.servers().size() / 2 + 1);
    }

    @Test
    void open_uri_parametersApplyAndTheLockWorks() throws Exception {
        String hosts = nodes.addresses();
        // README-BEGIN redlock-uri
        try (LockProvider locks = LockProviders.open(URI.create("redlock://" + hosts // h1:6379,h2:6379,h3:6379
                + "?nodeTimeout=100ms&leaseTime=10s&keyPrefix=billing-redlock"))) {
            try (Lease lease = locks.lock("invoice-42").acquire()) {
                lease.checkValid();
            }
        }
        // README-END
        List<String> keys = onEveryNode("KEYS", "billing-redlock:*");
        assertThat(keys)
                .as("the counter under the URI's key prefix")
                .allSatisfy(k -> assertThat(k).contains(":token"));
        assertThat(keys)
                .as("the lock released on a majority of the nodes")
                .filteredOn(k -> !k.contains(":lock"))
                .hasSizeGreaterThanOrEqualTo(nodes.servers().size() / 2 + 1);
    }

    @Test
    void leaseControl_handleLeaseTimeExtendAndReleaseAfter_everyNodeKeepsEachTime() throws Exception {
        try (RedlockLockProvider locks = RedlockLockProvider.builder()
                        .nodes(List.of(nodes.addresses().split(",")))
                        .build();
                RedlockLockProvider other = RedlockLockProvider.builder()
                        .nodes(List.of(nodes.addresses().split(",")))
                        .build()) {
            String key = RedlockTestAccess.lockKey(locks, "nightly-report");
            // README-BEGIN redlock-lease-control
            Lease report = locks.lock("nightly-report")
                    .withLeaseTime(Duration.ofMinutes(10)) // every node's time to live: 10 min
                    .withAutoRenew(false)
                    .acquire();
            report.extend(Duration.ofMinutes(20)); // PEXPIRE 20 min on a majority; same token
            // ... the report ...
            report.releaseAfter(Duration.ofMinutes(5)); // the nodes drop the lock in 5 min, even if we crash
            // README-END
            assertThat(report.isValid()).as("over for the caller").isFalse();
            for (String pttl : onEveryNode("PTTL", key)) {
                assertThat(Long.parseLong(pttl)).as("the delay on every node").isBetween(290_000L, 300_000L);
            }
            assertThat(other.lock("nightly-report").tryAcquire())
                    .as("taken for the delay")
                    .isEmpty();
            onEveryNode("DEL", key); // end the delay now rather than in five minutes
            try (Lease next = other.lock("nightly-report").tryAcquire().orElseThrow()) {
                assertThat(next.fencingToken().getAsLong())
                        .isGreaterThan(report.fencingToken().getAsLong());
            }
        }
    }
}
