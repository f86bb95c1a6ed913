package io.distlock.postgresql;

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
 * The error rule against a real PostgreSQL: a refused login (SQLSTATE 28P01) and a missing
 * privilege (42501) are a {@link LockConfigurationException} within about one round trip, even inside
 * a {@code tryAcquire} that may wait 5 s (never retried, never the pool's wait timeout); a stopped
 * server is a {@link BackendUnavailableException}.
 */
class PostgresErrorsIT {
    private static final Duration WAIT = Duration.ofSeconds(5);
    /** Well under {@link #WAIT} and the pool's default wait (5 s): one login or statement round trip and some slack. */
    private static final long FAST_MILLIS = 1000;

    private static PostgresTckFixture fixture;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeAll
    static void startServer() {
        fixture = new PostgresTckFixture(false);
        fixture.newPostgresClient(LockOptions.defaults()).close(); // creates the table and the sequence
        fixture.db()
                .executeAsSuperuser(
                        "CREATE ROLE no_lock_table LOGIN PASSWORD 'pw-1'",
                        "GRANT USAGE, UPDATE ON SEQUENCE distlock_locks_token TO no_lock_table",
                        "CREATE ROLE no_sequence_update LOGIN PASSWORD 'pw-2'",
                        "GRANT SELECT, INSERT, UPDATE ON distlock_locks TO no_sequence_update",
                        "GRANT USAGE ON SEQUENCE distlock_locks_token TO no_sequence_update",
                        "CREATE ROLE rotated LOGIN PASSWORD 'pw-3'",
                        "GRANT SELECT, INSERT, UPDATE ON distlock_locks TO rotated",
                        "GRANT USAGE, UPDATE ON SEQUENCE distlock_locks_token TO rotated",
                        "CREATE ROLE no_connect LOGIN PASSWORD 'pw-4'",
                        "REVOKE CONNECT ON DATABASE distlock_test FROM PUBLIC",
                        "GRANT CONNECT ON DATABASE distlock_test TO distlock, no_lock_table, no_sequence_update, rotated");
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

    private PostgresLockProvider provider(String role, String password) {
        PostgresLockProvider p = PostgresLockProvider.builder()
                .jdbcUrl(fixture.db().jdbcUrl())
                .options(PostgresLockOptions.builder()
                        .credentials(Credentials.of(role, password))
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
        assertThat(t)
                .hasMessageContaining("refused the login")
                .hasMessageContaining("28P01")
                .hasMessageNotContaining("not-the-password");
    }

    @Test
    void wrongPassword_openedFromUri_configurationErrorAtOnce() {
        fastConfigurationError(() -> {
            try (LockProvider p =
                    LockProviders.open("postgresql://" + fixture.db().user() + ":wrong@"
                            + fixture.db().address() + "/" + fixture.db().database())) {
                p.lock("wrong-password-uri").tryAcquire(WAIT);
            }
        });
    }

    @Test
    void noConnectPrivilege_configurationErrorAtOnce() {
        Throwable t = fastConfigurationError(() -> provider("no_connect", "pw-4"));
        assertThat(t).hasMessageContaining("refused the login");
    }

    @Test
    void noPrivilegeOnLockTable_configurationErrorAtOnceNamingTheTable() {
        Throwable t = fastConfigurationError(() -> provider("no_lock_table", "pw-1"));
        assertThat(t).hasMessageContaining("no privilege on table distlock_locks");
    }

    @Test
    void noUpdateOnTokenSequence_tryAcquireWithWait_configurationErrorAtOnceNotRetried() {
        PostgresLockProvider p = provider("no_sequence_update", "pw-2");
        Throwable t = fastConfigurationError(() -> p.lock("no-sequence-update").tryAcquire(WAIT));
        assertThat(t).hasMessageContaining("lacks a privilege").hasMessageContaining("42501");
        assertThat(p.heldLeases()).isEmpty();
    }

    @Test
    void passwordChangedWhileRunning_newConnectionRefused_configurationErrorAtOnce() {
        PostgresLockProvider p = provider("rotated", "pw-3");
        Lease held = p.lock("rotated-a").tryAcquire().orElseThrow(); // the pool's connections are busy now
        fixture.db().executeAsSuperuser("ALTER ROLE rotated PASSWORD 'pw-3-new'");
        try {
            // the pool holds the lock connection: the next one is a new login
            fastConfigurationError(() -> p.lock("rotated-b").tryAcquire(WAIT));
            assertThat(held.isValid()).as("the lock held on an open connection").isTrue();
            assertThat(held.release()).isTrue();
        } finally {
            fixture.db().executeAsSuperuser("ALTER ROLE rotated PASSWORD 'pw-3'");
        }
    }

    @Test
    void serverStopped_tryAcquireAndBuild_backendUnavailable() {
        PostgresLockProvider p = provider(fixture.db().user(), fixture.db().password());
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
