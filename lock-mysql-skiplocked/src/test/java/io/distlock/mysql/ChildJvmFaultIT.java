package io.distlock.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.fencing.JdbcFencingGuard;
import io.distlock.testing.faults.ChildJvmLockClient;
import io.distlock.testing.faults.TcpProxy;
import io.distlock.testing.servers.MariaDbServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Holders in child JVMs: killed -9, paused (SIGSTOP), blackholed by the proxy, their connection killed. */
class ChildJvmFaultIT {
    private static final JdbcFencingGuard GUARD = JdbcFencingGuard.create();
    private static MySqlTckFixture fixture;

    @BeforeAll
    static void startServer() throws Exception {
        fixture = new MySqlTckFixture(false);
        try (Connection c = fixture.db().connect()) {
            GUARD.createTableIfMissing(c);
        }
    }

    @AfterAll
    static void stopServer() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private static MariaDbServer db() {
        return fixture.db();
    }

    private static String uri(String address, Duration lease) {
        return "mysql://" + db().user() + ":" + db().password() + "@" + address + "/" + db().database() + "?leaseTime="
                + lease.toMillis() + "ms&createSchema=true&poolSize=3";
    }

    private static ChildJvmLockClient child(Duration lease) {
        return ChildJvmLockClient.start(uri(db().host() + ":" + db().port(), lease));
    }

    private static MySqlLockProvider client(Duration lease) {
        return fixture.newMySqlClient(LockOptions.builder().leaseTime(lease).build());
    }

    private static void guardedWrite(String resource, long token) throws SQLException {
        try (Connection c = db().connect()) {
            c.setAutoCommit(false);
            GUARD.check(c, resource, token);
            c.commit();
        }
    }

    private static boolean write(ChildJvmLockClient child, String resource) {
        return child.write(db().jdbcUrl(), db().user(), db().password(), resource)
                .accepted();
    }

    @Test
    void holderKilled9_lockFreeAsSoonAsServerSeesDisconnect() throws Exception {
        String name = "child-kill9";
        Duration lease = Duration.ofSeconds(20);
        try (ChildJvmLockClient child = child(lease);
                MySqlLockProvider other = client(lease)) {
            long childToken = child.acquire(name, Duration.ZERO).token().getAsLong();
            assertThat(other.lock(name).tryAcquire()).isEmpty();
            long killed = System.nanoTime();
            child.kill();
            Lease l = other.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            long freedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            assertThat(freedMillis).as("long before the 20 s lease").isLessThan(3000);
            assertThat(l.fencingToken().getAsLong()).isGreaterThan(childToken);
            l.release();
        }
    }

    @Test
    void holderPaused_serverDropsItNextHolderFencesItAndResumedLeaseIsLost() throws Exception {
        String name = "child-sigstop";
        Duration lease = Duration.ofSeconds(2);
        try (ChildJvmLockClient child = child(lease);
                MySqlLockProvider other = client(lease)) {
            long childToken = child.acquire(name, Duration.ZERO).token().getAsLong();
            assertThat(write(child, name)).isTrue();
            child.pause();
            try {
                long paused = System.nanoTime();
                Lease l = other.lock(name).tryAcquire(Duration.ofSeconds(15)).orElseThrow();
                long freedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - paused);
                assertThat(freedMillis)
                        .as("server drops the paused holder within about the lease")
                        .isBetween(500L, lease.toMillis() + 2000);
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
    void holderBlackholedByProxy_serverDropsItAndItsLeaseIsLost() throws Exception {
        String name = "child-blackhole";
        Duration lease = Duration.ofSeconds(2);
        try (TcpProxy proxy = TcpProxy.start(db().host(), db().port());
                ChildJvmLockClient child = ChildJvmLockClient.start(uri(proxy.address(), lease));
                MySqlLockProvider other = client(lease)) {
            long childToken = child.acquire(name, Duration.ZERO).token().getAsLong();
            proxy.blackhole(TcpProxy.Direction.BOTH);
            long cut = System.nanoTime();
            Lease l = other.lock(name).tryAcquire(Duration.ofSeconds(15)).orElseThrow();
            long freedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut);
            assertThat(freedMillis).isBetween(500L, lease.toMillis() + 2000);
            assertThat(l.fencingToken().getAsLong()).isGreaterThan(childToken);
            // the child's heartbeat times out after one lease: it reports the lease lost
            await().atMost(Duration.ofSeconds(10)).until(() -> !child.isValid());
            guardedWrite(name, l.fencingToken().getAsLong());
            proxy.resume();
            assertThat(write(child, name)).as("partitioned holder's write").isFalse();
            l.release();
        }
    }

    @Test
    void holderConnectionKilledByAdmin_childLeaseLostAndOtherAcquires() throws Exception {
        String name = "child-kill-connection";
        Duration lease = Duration.ofSeconds(2);
        try (ChildJvmLockClient child = child(lease);
                MySqlLockProvider other = client(lease)) {
            long childToken = child.acquire(name, Duration.ZERO).token().getAsLong();
            fixture.kill(lockHolderConnectionId());
            Lease l = other.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            assertThat(l.fencingToken().getAsLong()).isGreaterThan(childToken);
            await().atMost(Duration.ofSeconds(5)).until(() -> !child.isValid());
            l.release();
        }
    }

    /** The connection whose transaction holds row locks (only the child holds any here). */
    private static long lockHolderConnectionId() throws SQLException {
        try (Connection c = db().connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT trx_mysql_thread_id FROM information_schema.INNODB_TRX WHERE trx_rows_locked > 0")) {
            assertThat(rs.next()).as("a transaction holding a row lock").isTrue();
            return rs.getLong(1);
        }
    }
}
