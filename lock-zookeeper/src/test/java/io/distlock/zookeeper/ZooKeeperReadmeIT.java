package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.fencing.InMemoryFencingGuard;
import io.distlock.fencing.StaleTokenException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The code of this module's README, run against a real ZooKeeper server (the snippets between
 * {@code README-BEGIN} and {@code README-END}; {@code DocsTest} checks that the README shows them).
 */
@Timeout(60)
class ZooKeeperReadmeIT {
    private static ZooKeeperFixture fixture;

    @BeforeAll
    static void startServer() {
        fixture = ZooKeeperFixture.singleServer();
    }

    @AfterAll
    static void stopServer() {
        fixture.close();
    }

    /** While the lock is held: our node is the only one in the lock's queue, its czxid the token. */
    private static void writeInvoice(long token) throws Exception {
        List<String> queue = fixture.children("/myapp/locks/invoice-42");
        assertThat(queue).hasSize(1);
        assertThat(fixture.admin()
                        .checkExists()
                        .forPath("/myapp/locks/invoice-42/" + queue.get(0))
                        .getCzxid())
                .isEqualTo(token);
    }

    @Test
    void open_builderWithChrootAndRootPath_locksUnderThemWithAToken() throws Exception {
        String connectString = fixture.connectString() + "/myapp";
        InMemoryFencingGuard guard = new InMemoryFencingGuard();
        // README-BEGIN zookeeper-open
        try (ZooKeeperLockProvider locks = ZooKeeperLockProvider.builder()
                .connectString(connectString) // "zk1:2181,zk2:2181,zk3:2181/myapp": the chroot is optional
                .options(ZooKeeperLockOptions.builder()
                        .rootPath("/locks") // lock nodes live under /myapp/locks
                        .sessionTimeout(Duration.ofSeconds(10)) // how long a crashed holder keeps its locks
                        .build())
                .lockOptions(
                        LockOptions.builder().leaseTime(Duration.ofSeconds(10)).build())
                .build()) {
            try (Lease lease = locks.lock("invoice-42").acquire()) {
                long token = lease.fencingToken().getAsLong(); // the czxid of our node
                guard.check("invoice-42", token); // the resource refuses writes with older tokens
                writeInvoice(token); // the work the lock protects
            }
        }
        // README-END
        long token = guard.lastAccepted("invoice-42").orElseThrow();
        assertThat(token).isPositive();
        assertThatThrownBy(() -> guard.check("invoice-42", token - 1)).isInstanceOf(StaleTokenException.class);
        assertThat(fixture.children("/myapp/locks/invoice-42")).as("released").isEmpty();
    }

    @Test
    void leaseControl_handleLeaseTimeExtendAndReleaseAfter_nodeStaysUntilTheDelayOrClose() throws Exception {
        ZooKeeperLockProvider locks = fixture.newZkClient(LockOptions.defaults());
        try (ZooKeeperLockProvider other = fixture.newZkClient(LockOptions.defaults())) {
            String path = locks.internals().lockPath("nightly-report");
            // README-BEGIN zookeeper-lease-control
            Lease report = locks.lock("nightly-report")
                    .withLeaseTime(Duration.ofMinutes(10)) // ends 10 min after acquiring, on this client
                    .withAutoRenew(false)
                    .acquire();
            report.extend(Duration.ofMinutes(20)); // one exists checks that the node is still ours
            // ... the report ...
            report.releaseAfter(Duration.ofMinutes(5)); // the node stays 5 min more, then is deleted
            // README-END
            assertThat(report.isValid()).as("over for the caller").isFalse();
            assertThat(fixture.children(path))
                    .as("the node stays for the delay")
                    .hasSize(1);
            assertThat(other.lock("nightly-report").tryAcquire())
                    .as("still taken")
                    .isEmpty();
            locks.close(); // a provider closed during the delay deletes the node at once
            assertThat(fixture.children(path)).isEmpty();
            assertThat(other.lock("nightly-report").tryAcquire()).isPresent();
        } finally {
            locks.close();
        }
    }
}
