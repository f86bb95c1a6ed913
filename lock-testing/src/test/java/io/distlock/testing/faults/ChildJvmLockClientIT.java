package io.distlock.testing.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.testing.servers.MariaDbServer;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The child JVM plumbing. {@code mem://} locks are per JVM, so two children do not exclude each
 * other; that is enough to test acquire, tokens, guarded writes, pause and kill.
 */
class ChildJvmLockClientIT {
    private static MariaDbServer db;

    @BeforeAll
    static void startDb() {
        db = MariaDbServer.start();
    }

    @AfterAll
    static void stopDb() {
        db.close();
    }

    @Test
    void child_acquireWriteRelease_answersAndWritesThroughGuard() throws Exception {
        try (ChildJvmLockClient child = ChildJvmLockClient.start("mem://child-a?leaseTime=5s")) {
            ChildJvmLockClient.Acquisition a = child.acquire("orders", Duration.ofSeconds(1));
            assertThat(a.acquired()).isTrue();
            assertThat(a.token()).isPresent();
            assertThat(child.isValid()).isTrue();
            assertThat(child.write(db.jdbcUrl(), db.user(), db.password(), "res-a")
                            .accepted())
                    .isTrue();
            assertThat(child.release()).isTrue();
            assertThat(child.isValid()).isFalse();
            assertThat(child.release()).isFalse();
        }
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT COUNT(*) FROM " + LockClientMain.WRITES_TABLE + " WHERE resource = 'res-a'")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(1);
        }
    }

    @Test
    void child_providerUri_isNotOnTheCommandLine() {
        // a provider URI may carry a password; a process's command line is readable by every user
        try (ChildJvmLockClient child = ChildJvmLockClient.start("mem://uri-secret-7f3a?leaseTime=5s")) {
            String commandLine = ProcessHandle.of(child.pid())
                    .flatMap(h -> h.info().commandLine())
                    .orElseThrow(() -> new AssertionError("no command line for pid " + child.pid()));
            assertThat(commandLine).contains(LockClientMain.class.getName()).doesNotContain("uri-secret-7f3a");
            assertThat(child.acquire("orders", Duration.ZERO).acquired()).isTrue();
        }
    }

    @Test
    void child_olderTokenAfterNewerWrite_isRejectedAsStale() {
        try (ChildJvmLockClient older = ChildJvmLockClient.start("mem://x?leaseTime=5s");
                ChildJvmLockClient newer = ChildJvmLockClient.start("mem://x?leaseTime=5s")) {
            long oldToken = older.acquire("l", Duration.ZERO).token().getAsLong();
            assertThat(older.write(db.jdbcUrl(), db.user(), db.password(), "res-b")
                            .accepted())
                    .isTrue();
            // tokens are per JVM with mem://: make the second child's token larger
            long newToken = oldToken;
            while (newToken <= oldToken) {
                newToken = newer.acquire("l", Duration.ZERO).token().getAsLong();
                if (newToken <= oldToken) {
                    newer.release();
                }
            }
            assertThat(newer.write(db.jdbcUrl(), db.user(), db.password(), "res-b")
                            .accepted())
                    .isTrue();

            ChildJvmLockClient.WriteResult stale = older.write(db.jdbcUrl(), db.user(), db.password(), "res-b");

            assertThat(stale.accepted()).isFalse();
            assertThat(stale.lastAccepted()).hasValue(newToken);
        }
    }

    @Test
    void child_paused_stopsAnsweringAndAnswersAfterResume() {
        try (ChildJvmLockClient child = ChildJvmLockClient.start("mem://p?leaseTime=5s")) {
            child.acquire("l", Duration.ZERO);
            child.pause();
            long start = System.nanoTime();
            assertThatThrownBy(() -> child.isValid(Duration.ofMillis(500)))
                    .isInstanceOf(ChildJvmLockClient.NoAnswerException.class);
            assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(450L);
            assertThat(child.isAlive()).isTrue();
            child.resume();
            // the late answer to the timed-out VALID is skipped; this one is in step
            assertThat(child.release(Duration.ofSeconds(10))).isTrue();
        }
    }

    @Test
    void child_pausedLongerThanLease_stopsRenewingAndLosesTheLease() {
        try (ChildJvmLockClient child = ChildJvmLockClient.start("mem://gc?leaseTime=1s&autoRenew=true")) {
            assertThat(child.acquire("l", Duration.ZERO).acquired()).isTrue();
            // renewal keeps the lease well past its lease time while the child runs
            await().pollDelay(Duration.ofMillis(1500))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> true);
            assertThat(child.isValid()).isTrue();
            // a "GC pause" longer than the lease: the watchdog cannot renew
            try (Fault pause = Faults.pause(child, Duration.ofMillis(2500))) {
                await().pollDelay(Duration.ofMillis(2000))
                        .atMost(Duration.ofSeconds(3))
                        .until(pause::isActive);
            }
            assertThat(child.isValid()).isFalse();
        }
    }

    @Test
    void child_pauseFault_boundReached_childAnswersAgain() {
        try (ChildJvmLockClient child = ChildJvmLockClient.start("mem://f")) {
            // a bound long enough that a loaded machine still finds the fault active right after it starts
            try (Fault f = Faults.pause(child, Duration.ofMillis(2000))) {
                assertThat(f.isActive()).isTrue();
                assertThat(child.isValid(Duration.ofSeconds(10))).isFalse(); // answered after the bound
                assertThat(f.isActive()).isFalse();
            }
        }
    }

    @Test
    void child_killed_isGoneAndCommandsFail() {
        ChildJvmLockClient child = ChildJvmLockClient.start("mem://k");
        long pid = child.pid();
        child.acquire("l", Duration.ZERO);
        child.kill();
        await().atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(Paths.get("/proc", Long.toString(pid))));
        assertThatThrownBy(() -> child.isValid(Duration.ofSeconds(2)))
                .isInstanceOf(ChildJvmLockClient.NoAnswerException.class);
        child.close();
    }
}
