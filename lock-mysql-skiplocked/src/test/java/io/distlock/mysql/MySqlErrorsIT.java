package io.distlock.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The error rule against a real MariaDB: a refused login and a missing privilege are a {@link
 * LockConfigurationException} within about one round trip, even inside a {@code tryAcquire} that
 * may wait 5 s (never retried, never the pool's wait timeout); a stopped server is a {@link
 * BackendUnavailableException}.
 */
class MySqlErrorsIT {
    private static final Duration WAIT = Duration.ofSeconds(5);
    /** Well under {@link #WAIT} and the pool's default wait (5 s): one login or statement round trip and some slack. */
    private static final long FAST_MILLIS = 1000;

    private static MySqlTckFixture fixture;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeAll
    static void startServer() throws Exception {
        fixture = new MySqlTckFixture(false);
        fixture.newMySqlClient(LockOptions.defaults()).close(); // creates the tables
        fixture.db()
                .executeAsRoot(
                        "CREATE USER 'no_lock_table'@'%' IDENTIFIED BY 'pw-1'",
                        "GRANT SELECT, INSERT, UPDATE ON distlock_test.distlock_locks_token TO 'no_lock_table'@'%'",
                        "CREATE USER 'no_token_insert'@'%' IDENTIFIED BY 'pw-2'",
                        "GRANT SELECT, INSERT, UPDATE ON distlock_test.distlock_locks TO 'no_token_insert'@'%'",
                        "GRANT SELECT ON distlock_test.distlock_locks_token TO 'no_token_insert'@'%'",
                        "CREATE USER 'rotated'@'%' IDENTIFIED BY 'pw-3'",
                        "GRANT SELECT, INSERT, UPDATE ON distlock_test.distlock_locks TO 'rotated'@'%'",
                        "GRANT SELECT, INSERT, UPDATE ON distlock_test.distlock_locks_token TO 'rotated'@'%'");
    }

    @AfterAll
    static void stopServer() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @AfterEach
    void closeProviders() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        open.clear();
    }

    private MySqlLockProvider provider(String user, String password) {
        MySqlLockProvider p = MySqlLockProvider.builder()
                .jdbcUrl(fixture.db().jdbcUrl())
                .options(MySqlLockOptions.builder()
                        .credentials(Credentials.of(user, password))
                        .poolSize(3)
                        .poolWaitTimeout(Duration.ofMillis(300))
                        .build())
                .build();
        open.add(p);
        return p;
    }

    /** Runs {@code action}, expects a {@link LockConfigurationException} within {@link #FAST_MILLIS}. */
    private static Throwable fastConfigurationError(Executable action) {
        long start = System.nanoTime();
        Throwable t = catchThrowable(action::execute);
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(t).isInstanceOf(LockConfigurationException.class);
        assertThat(elapsedMillis).as("time to the configuration error").isLessThan(FAST_MILLIS);
        return t;
    }

    @Test
    void wrongPassword_tryAcquireWithWait_configurationErrorAtOnce() {
        Throwable t = fastConfigurationError(() -> {
            try (LockProvider p = fixture.newClientWithWrongCredentials(LockOptions.defaults())) {
                p.lock("wrong-password").tryAcquire(WAIT);
            }
        });
        assertThat(t).hasMessageContaining("refused the credentials").hasMessageNotContaining("not-the-password");
    }

    @Test
    void wrongPassword_openedFromUri_configurationErrorAtOnce() {
        fastConfigurationError(() -> {
            try (LockProvider p = LockProviders.open("mysql://" + fixture.db().user() + ":wrong@"
                    + fixture.db().address() + "/" + fixture.db().database())) {
                p.lock("wrong-password-uri").tryAcquire(WAIT);
            }
        });
    }

    @Test
    void noPrivilegeOnLockTable_configurationErrorAtOnceNamingTheTable() {
        Throwable t = fastConfigurationError(() -> provider("no_lock_table", "pw-1"));
        assertThat(t).hasMessageContaining("no privilege on table distlock_locks");
    }

    @Test
    void noInsertOnTokenTable_tryAcquireWithWait_configurationErrorAtOnceNotRetried() {
        MySqlLockProvider p = provider("no_token_insert", "pw-2");
        Throwable t = fastConfigurationError(() -> p.lock("no-token-insert").tryAcquire(WAIT));
        assertThat(t).hasMessageContaining("lacks a privilege").hasMessageContaining("distlock_locks_token");
        assertThat(p.heldLeases()).isEmpty();
    }

    @Test
    void passwordChangedWhileRunning_newConnectionRefused_configurationErrorAtOnce() throws Exception {
        MySqlLockProvider p = provider("rotated", "pw-3");
        Lease held = p.lock("rotated-a").tryAcquire().orElseThrow(); // the pool's connections are busy now
        fixture.db().executeAsRoot("ALTER USER 'rotated'@'%' IDENTIFIED BY 'pw-3-new'");
        try {
            fastConfigurationError(() -> p.lock("rotated-b").tryAcquire(WAIT));
            assertThat(held.isValid()).as("the lock held on an open connection").isTrue();
            assertThat(held.release()).isTrue();
        } finally {
            fixture.db().executeAsRoot("ALTER USER 'rotated'@'%' IDENTIFIED BY 'pw-3'");
        }
    }

    @Test
    void serverStopped_tryAcquireAndBuild_backendUnavailable() {
        MySqlLockProvider p = provider(fixture.db().user(), fixture.db().password());
        p.lock("stopped").tryAcquire().orElseThrow().release();
        fixture.stopServer();
        try {
            Throwable t = catchThrowable(() -> p.lock("stopped").tryAcquire(Duration.ofMillis(500)));
            assertThat(t).isInstanceOf(BackendUnavailableException.class);
            Throwable atStart = catchThrowable(
                    () -> provider(fixture.db().user(), fixture.db().password()));
            assertThat(atStart).isInstanceOf(BackendUnavailableException.class);
        } finally {
            fixture.startServer();
        }
    }
}
