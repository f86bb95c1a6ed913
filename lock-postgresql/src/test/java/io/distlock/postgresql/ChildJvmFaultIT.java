package io.distlock.postgresql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.fencing.JdbcFencingGuard;
import io.distlock.testing.faults.ChildJvmLockClient;
import io.distlock.testing.faults.TcpProxy;
import io.distlock.testing.servers.MariaDbServer;
import io.distlock.testing.servers.PostgresServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Holders in child JVMs: killed -9, paused (SIGSTOP) past their lease, blackholed by the proxy, their
 * connection reset, their session ended by an administrator, the server restarted with and without
 * its data. Guarded writes go to a MariaDB resource (the child's writer speaks MySQL), whose fence
 * rejects a stale holder's write.
 */
class ChildJvmFaultIT {
    private static final JdbcFencingGuard GUARD = JdbcFencingGuard.create();
    private static PostgresTckFixture fixture;
    private static MariaDbServer resource;

    @BeforeAll
    static void startServers() throws Exception {
        fixture = new PostgresTckFixture(false);
        fixture.newPostgresClient(LockOptions.defaults()).close(); // creates the table and the sequence
        resource = MariaDbServer.start();
        try (Connection c = resource.connect()) {
            GUARD.createTableIfMissing(c);
        }
    }

    @AfterAll
    static void stopServers() {
        if (fixture != null) {
            fixture.close();
        }
        if (resource != null) {
            resource.close();
        }
    }

    private static PostgresServer db() {
        return fixture.db();
    }

    private static String uri(String address, Duration lease) {
        return "postgresql://" + db().user() + ":" + db().password() + "@" + address + "/" + db().database()
                + "?leaseTime=" + lease.toMillis() + "ms&poolSize=3";
    }

    private static ChildJvmLockClient child(Duration lease) {
        return ChildJvmLockClient.start(uri(db().address(), lease));
    }

    private static PostgresLockProvider client(Duration lease) {
        return fixture.newPostgresClient(LockOptions.builder().leaseTime(lease).build());
    }

    private static void guardedWrite(String resourceName, long token) throws SQLException {
        try (Connection c = resource.connect()) {
            c.setAutoCommit(false);
            GUARD.check(c, resourceName, token);
            c.commit();
        }
    }

    private static boolean write(ChildJvmLockClient child, String resourceName) {
        return child.write(resource.jdbcUrl(), resource.user(), resource.password(), resourceName)
                .accepted();
    }

    @Test
    void holderKilled9_lockFreeAsSoonAsServerSeesDisconnect() throws Exception {
        String name = "child-kill9";
        Duration lease = Duration.ofSeconds(20);
        try (ChildJvmLockClient child = child(lease);
                PostgresLockProvider other = client(lease)) {
            long childToken = child.acquire(name, Duration.ZERO).token().getAsLong();
            assertThat(other.lock(name).tryAcquire()).isEmpty();
            long killed = System.nanoTime();
            child.kill();
            Lease l = other.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed))
                    .as("long before the 20 s lease")
                    .isLessThan(3000);
            assertThat(l.fencingToken().getAsLong()).isGreaterThan(childToken);
            l.release();
        }
    }

    @Test
    void holderPaused_serverEndsItNextHolderFencesItAndResumedLeaseIsLost() throws Exception {
        String name = "child-sigstop";
        Duration lease = Duration.ofSeconds(2);
        try (ChildJvmLockClient child = child(lease);
                PostgresLockProvider other = client(lease)) {
            long childToken = child.acquire(name, Duration.ZERO).token().getAsLong();
            assertThat(write(child, name)).isTrue();
            child.pause();
            try {
                long paused = System.nanoTime();
                Lease l = other.lock(name).tryAcquire(Duration.ofSeconds(15)).orElseThrow();
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - paused))
                        .as("the server ends the paused holder's transaction one lease after its last request")
                        .isBetween(lease.toMillis() - 1000, lease.toMillis() + 700);
                long token = l.fencingToken().getAsLong();
                assertThat(token).isGreaterThan(childToken);
                guardedWrite(name, token);
                child.resume();
                assertThat(write(child, name)).as("resumed holder's write").isFalse();
                await().atMost(Duration.ofSeconds(5)).until(() -> !child.isValid());
                assertThat(l.isValid()).isTrue();
                l.release();
            } finally {
                if (child.isAlive()) {
                    child.resume();
                }
            }
        }
    }

    @Test
    void holderBlackholedByProxy_serverEndsItAndItsLeaseIsLost() throws Exception {
        String name = "child-blackhole";
        Duration lease = Duration.ofSeconds(2);
        try (TcpProxy proxy = TcpProxy.start(db().host(), db().port());
                ChildJvmLockClient child = ChildJvmLockClient.start(uri(proxy.address(), lease));
                PostgresLockProvider other = client(lease)) {
            long childToken = child.acquire(name, Duration.ZERO).token().getAsLong();
            proxy.blackhole(TcpProxy.Direction.BOTH);
            long cut = System.nanoTime();
            Lease l = other.lock(name).tryAcquire(Duration.ofSeconds(15)).orElseThrow();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut))
                    .isBetween(lease.toMillis() - 1000, lease.toMillis() + 700);
            assertThat(l.fencingToken().getAsLong()).isGreaterThan(childToken);
            // the child's heartbeat times out: it reports the lease lost and never reconnects under it
            await().atMost(Duration.ofSeconds(10)).until(() -> !child.isValid());
            guardedWrite(name, l.fencingToken().getAsLong());
            proxy.resume();
            assertThat(write(child, name)).as("partitioned holder's write").isFalse();
            l.release();
        }
    }

    @Test
    void holderConnectionReset_lockFreeAtOnceAndChildLeaseLost() throws Exception {
        String name = "child-reset";
        Duration lease = Duration.ofSeconds(20);
        try (TcpProxy proxy = TcpProxy.start(db().host(), db().port());
                ChildJvmLockClient child = ChildJvmLockClient.start(uri(proxy.address(), lease));
                PostgresLockProvider other = client(lease)) {
            long childToken = child.acquire(name, Duration.ZERO).token().getAsLong();
            long reset = System.nanoTime();
            assertThat(proxy.cutConnections()).isPositive();
            Lease l = other.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - reset))
                    .as("long before the 20 s lease")
                    .isLessThan(3000);
            assertThat(l.fencingToken().getAsLong()).isGreaterThan(childToken);
            await().atMost(Duration.ofSeconds(30)).until(() -> !child.isValid());
            l.release();
        }
    }

    @Test
    void holderSessionTerminatedByAdmin_childLeaseLostAndOtherAcquires() throws Exception {
        String name = "child-terminated";
        Duration lease = Duration.ofSeconds(2);
        try (ChildJvmLockClient child = child(lease);
                PostgresLockProvider other = client(lease)) {
            long childToken = child.acquire(name, Duration.ZERO).token().getAsLong();
            String pid = db().executeAsSuperuser(
                            "SELECT pid FROM pg_locks WHERE locktype = 'transactionid' AND mode = 'ExclusiveLock'"
                                    + " AND pid IN (SELECT pid FROM pg_stat_activity WHERE state = 'idle in"
                                    + " transaction')")
                    .trim();
            fixture.terminate(Long.parseLong(pid));
            Lease l = other.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            assertThat(l.fencingToken().getAsLong()).isGreaterThan(childToken);
            await().atMost(Duration.ofSeconds(5)).until(() -> !child.isValid());
            l.release();
        }
    }

    @Test
    void serverRestartedWithAndWithoutData_holderLostAndTokensKeepIncreasing() throws Exception {
        String name = "child-server-restart";
        Duration lease = Duration.ofSeconds(2);
        long childToken;
        try (ChildJvmLockClient child = child(lease)) {
            childToken = child.acquire(name, Duration.ZERO).token().getAsLong();
            fixture.stopServer();
            fixture.startServer();
            await().atMost(Duration.ofSeconds(10)).until(() -> !child.isValid());
        }
        long afterRestart;
        try (PostgresLockProvider other = client(lease)) {
            Lease l = other.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            afterRestart = l.fencingToken().getAsLong();
            assertThat(afterRestart).isGreaterThan(childToken);
            guardedWrite(name, afterRestart);
            l.release();
        }
        db().restart(false);
        try (PostgresLockProvider empty = client(lease)) { // creates the table and the sequence again
            Lease l = empty.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            long token = l.fencingToken().getAsLong();
            assertThat(token)
                    .as("a token after the server lost its data, above every earlier one")
                    .isGreaterThan(afterRestart);
            guardedWrite(name, token); // the resource accepts the new holder without an operator
            l.release();
        }
    }
}
