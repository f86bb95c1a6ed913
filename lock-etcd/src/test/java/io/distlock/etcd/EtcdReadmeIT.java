package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.TimeoutOptions;
import io.distlock.fencing.InMemoryFencingGuard;
import io.distlock.fencing.StaleTokenException;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The code of this module's README, run against a real etcd server (the snippets between {@code
 * README-BEGIN} and {@code README-END}; {@code DocsTest} checks that the README shows them).
 */
@Timeout(60)
class EtcdReadmeIT {
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

    private static List<KeyValue> keysUnder(String prefix) throws Exception {
        return fixture.admin()
                .getKVClient()
                .get(
                        ByteSequence.from(prefix, StandardCharsets.UTF_8),
                        GetOption.builder().isPrefix(true).build())
                .get(5, TimeUnit.SECONDS)
                .getKvs();
    }

    /** While the lock is held: our key is the only one under the lock's prefix, its create revision the token. */
    private static void writeInvoice(long token) throws Exception {
        assertThat(keysUnder("/myapp/locks/invoice-42/"))
                .singleElement()
                .satisfies(kv -> assertThat(kv.getCreateRevision()).isEqualTo(token));
    }

    @Test
    void open_builderWithKeyPrefix_locksUnderItWithAToken() throws Exception {
        List<String> endpoints = List.of(server.endpoint());
        InMemoryFencingGuard guard = new InMemoryFencingGuard();
        // README-BEGIN etcd-open
        try (EtcdLockProvider locks = EtcdLockProvider.builder()
                .endpoints(endpoints) // List.of("etcd1:2379", "etcd2:2379", "etcd3:2379")
                .options(EtcdLockOptions.builder()
                        .keyPrefix("/myapp/locks/")
                        .timeouts(TimeoutOptions.of(Duration.ofSeconds(2))) // connect and request
                        .build())
                .lockOptions(
                        LockOptions.builder().leaseTime(Duration.ofSeconds(10)).build()) // the lease TTL
                .build()) {
            try (Lease lease = locks.lock("invoice-42").acquire()) {
                long token = lease.fencingToken().getAsLong(); // the create revision of our key
                guard.check("invoice-42", token); // the resource refuses writes with older tokens
                writeInvoice(token); // the work the lock protects
            }
        }
        // README-END
        long token = guard.lastAccepted("invoice-42").orElseThrow();
        assertThatThrownBy(() -> guard.check("invoice-42", token - 1)).isInstanceOf(StaleTokenException.class);
        assertThat(keysUnder("/myapp/locks/"))
                .as("released, and the session lease revoked on close")
                .isEmpty();
    }

    @Test
    void leaseControl_handleLeaseTimeExtendAndReleaseAfter_serverKeepsEachTime() throws Exception {
        try (EtcdLockProvider locks = fixture.newClient(LockOptions.defaults());
                EtcdLockProvider other = fixture.newClient(LockOptions.defaults())) {
            // README-BEGIN etcd-lease-control
            Lease report = locks.lock("nightly-report")
                    .withLeaseTime(Duration.ofMinutes(10)) // a lease of its own: the server ends it in 10 min
                    .withAutoRenew(false)
                    .acquire();
            report.extend(Duration.ofMinutes(20)); // moves the key to a 20 min lease; same token
            // ... the report ...
            report.releaseAfter(Duration.ofMinutes(5)); // the server deletes the key in 5 min, even if we crash
            // README-END
            assertThat(report.isValid()).as("over for the caller").isFalse();
            KeyValue key = fixture.keys("nightly-report").get(0);
            assertThat(key.getCreateRevision()).isEqualTo(report.fencingToken().getAsLong());
            long granted = fixture.admin()
                    .getLeaseClient()
                    .timeToLive(key.getLease(), LeaseOption.DEFAULT)
                    .get(5, TimeUnit.SECONDS)
                    .getGrantedTTL();
            assertThat(granted).as("the delay lease's TTL").isEqualTo(300);
            assertThat(other.lock("nightly-report").tryAcquire())
                    .as("taken for the delay")
                    .isEmpty();
            // end the delay now rather than in five minutes
            fixture.admin().getLeaseClient().revoke(key.getLease()).get(5, TimeUnit.SECONDS);
            assertThat(other.lock("nightly-report").tryAcquire()).isPresent();
        }
    }
}
