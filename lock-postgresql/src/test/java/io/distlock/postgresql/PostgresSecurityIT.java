package io.distlock.postgresql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockConfigurationException;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.TlsOptions;
import io.distlock.build.ReadmeExamples;
import io.distlock.testing.LogCapture;
import io.distlock.testing.servers.PostgresServer;
import io.distlock.testing.servers.TestCertificates;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * PostgreSQL with TLS (certificates generated for the test, SCRAM passwords) and the README's
 * least-privilege lock role ({@link LeastPrivilegeRole}): the provider works as that role over
 * verified TLS ({@code sslmode=verify-full}) with PEM trust, a trust store or an {@code SSLContext};
 * the role can do nothing else; a wrong password and an untrusted server fail at once with a clear
 * {@link LockConfigurationException} that, like every log line, never contains the password.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresSecurityIT {
    private TestCertificates certs;
    private PostgresServer db;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeAll
    void startTlsServer() {
        certs = TestCertificates.generate();
        db = PostgresServer.builder().tls(certs).start();
        LeastPrivilegeRole.create(db, PostgresLockOptions.defaults());
    }

    @AfterEach
    void closeProviders() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        open.clear();
    }

    @AfterAll
    void stop() {
        if (db != null) {
            db.close();
        }
        if (certs != null) {
            certs.close();
        }
    }

    private String url() {
        return "jdbc:postgresql://" + db.address() + "/" + db.database();
    }

    private PostgresLockProvider provider(TlsOptions tls, String role, String password) {
        PostgresLockProvider p = PostgresLockProvider.builder()
                .jdbcUrl(url())
                .options(options()
                        .mutate()
                        .credentials(Credentials.of(role, password))
                        .tls(tls)
                        .build())
                .leaseTime(Duration.ofSeconds(2))
                .build();
        open.add(p);
        return p;
    }

    private static PostgresLockOptions options() {
        return PostgresLockOptions.builder()
                .createSchema(true) // denied for the lock role: the provider must cope
                .poolSize(4)
                .poolWaitTimeout(Duration.ofSeconds(10)) // generous: CI machines are slow
                .build();
    }

    private PostgresLockProvider lockRole() {
        String address = db.address();
        Path caCertificate = certs.caCertificate();
        String secret = LeastPrivilegeRole.PASSWORD;
        PostgresLockOptions options = options();
        // README-BEGIN secure-configuration
        PostgresLockProvider locks = PostgresLockProvider.builder()
                .jdbcUrl("jdbc:postgresql://" + address + "/distlock_test")
                .options(options.mutate()
                        // the least-privilege role of "Privileges"; its password is stored as SCRAM
                        .credentials(Credentials.of("distlock_app", secret))
                        // sslmode=verify-full with the CA's PEM certificate as sslrootcert
                        .tls(TlsOptions.builder()
                                .trustCertificates(caCertificate)
                                .build())
                        .build())
                .leaseTime(Duration.ofSeconds(2))
                .build();
        // README-END
        open.add(locks);
        return locks;
    }

    @Test
    void readme_secureConfigurationExample_isTheTestedOne() {
        assertThat(db.database()).isEqualTo("distlock_test");
        ReadmeExamples.assertSnippetMatchesSource(
                Path.of("README.md"),
                Path.of("src/test/java/io/distlock/postgresql/PostgresSecurityIT.java"),
                "secure-configuration");
    }

    @Test
    void lockRole_overVerifiedTls_acquiresExcludesReleases() throws Exception {
        PostgresLockProvider a = lockRole();
        PostgresLockProvider b = lockRole();
        Lease held = a.lock("tls-least-privilege").tryAcquire().orElseThrow();
        assertThat(ssl(a.connection(held))).as("the lock connection uses TLS").isTrue();
        assertThat(b.lock("tls-least-privilege").tryAcquire()).isEmpty();
        assertThat(held.release()).isTrue();
        Lease next = b.lock("tls-least-privilege").tryAcquire().orElseThrow();
        assertThat(next.fencingToken().getAsLong())
                .isGreaterThan(held.fencingToken().getAsLong());
        assertThat(next.release()).isTrue();
        assertThat(db.executeAsSuperuser("SELECT rolpassword LIKE 'SCRAM-SHA-256$%' FROM pg_authid WHERE rolname"
                                + " = '" + LeastPrivilegeRole.ROLE + "'")
                        .trim())
                .as("the role's password is stored as SCRAM")
                .isEqualTo("t");
    }

    private static boolean ssl(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    @Test
    void trustStoreAndSslContext_alsoVerifyTheServer() throws Exception {
        PostgresLockProvider fromStore = provider(
                TlsOptions.builder()
                        .trustStore(certs.trustStore(), TestCertificates.STORE_PASSWORD)
                        .build(),
                LeastPrivilegeRole.ROLE,
                LeastPrivilegeRole.PASSWORD);
        Lease l = fromStore.lock("trust-store").tryAcquire().orElseThrow();
        assertThat(ssl(fromStore.connection(l))).isTrue();
        assertThat(l.release()).isTrue();
        PostgresLockProvider fromContext = provider(
                TlsOptions.builder().sslContext(context(certs.trustStore())).build(),
                LeastPrivilegeRole.ROLE,
                LeastPrivilegeRole.PASSWORD);
        Lease m = fromContext.lock("ssl-context").tryAcquire().orElseThrow();
        assertThat(ssl(fromContext.connection(m))).isTrue();
        assertThat(m.release()).isTrue();
    }

    private static SSLContext context(Path trustStore) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(trustStore)) {
            ks.load(in, TestCertificates.STORE_PASSWORD.toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(null, tmf.getTrustManagers(), null);
        return c;
    }

    @Test
    void lockRole_openedFromUriWithPemTrust_works() {
        String uri = "postgresql://" + LeastPrivilegeRole.ROLE + ":"
                + URLEncoder.encode(LeastPrivilegeRole.PASSWORD, StandardCharsets.UTF_8) + "@" + db.address() + "/"
                + db.database() + "?createSchema=true&leaseTime=2s&poolWaitTimeout=10s&trustCertificates="
                + URLEncoder.encode(certs.caCertificate().toString(), StandardCharsets.UTF_8);
        LockProvider p = LockProviders.open(URI.create(uri));
        open.add(p);
        assertThat(p.toString()).doesNotContain(LeastPrivilegeRole.PASSWORD);
        Lease l = p.lock("from-uri").tryAcquire().orElseThrow();
        assertThat(l.release()).isTrue();
    }

    @Test
    void lockRole_canDoNothingElse() throws Exception {
        try (Connection c = DriverManager.getConnection(
                url() + "?sslmode=verify-full&sslrootcert=" + certs.caCertificate(),
                LeastPrivilegeRole.ROLE,
                LeastPrivilegeRole.PASSWORD)) {
            c.setAutoCommit(true);
            for (String sql : List.of(
                    "CREATE TABLE intruder (id int)",
                    "DROP TABLE distlock_locks",
                    "DELETE FROM distlock_locks",
                    "TRUNCATE distlock_locks",
                    "ALTER SEQUENCE distlock_locks_token RESTART",
                    "DROP SEQUENCE distlock_locks_token",
                    "SELECT * FROM pg_authid",
                    "CREATE DATABASE intruder",
                    "CREATE ROLE intruder")) {
                try (Statement s = c.createStatement()) {
                    assertThatThrownBy(() -> s.execute(sql))
                            .as(sql)
                            .isInstanceOf(SQLException.class)
                            .satisfies(e ->
                                    assertThat(((SQLException) e).getSQLState()).isIn("42501", "42P01"));
                }
            }
        }
    }

    @Test
    void lockRole_objectsMissing_clearErrorNamingTheScript() {
        Throwable t = catchThrowable(() -> PostgresLockProvider.builder()
                .jdbcUrl(url())
                .options(options()
                        .mutate()
                        .credentials(Credentials.of(LeastPrivilegeRole.ROLE, LeastPrivilegeRole.PASSWORD))
                        .tls(TlsOptions.builder()
                                .trustCertificates(certs.caCertificate())
                                .build())
                        .table("not_created")
                        .build())
                .build());
        assertThat(t)
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("not_created")
                .hasMessageContaining("schema.sql");
    }

    @Test
    void wrongPassword_refusedClearly_passwordNowhere() {
        assertRefused(
                TlsOptions.builder().trustCertificates(certs.caCertificate()).build(),
                "Wr0ng-pw-x",
                "refused the login");
    }

    @Test
    void untrustedServerCertificate_refusedClearly() {
        try (TestCertificates other = TestCertificates.generate()) {
            assertRefused(
                    TlsOptions.builder()
                            .trustCertificates(other.caCertificate())
                            .build(),
                    LeastPrivilegeRole.PASSWORD,
                    "TLS failed");
            assertRefused(
                    TlsOptions.builder()
                            .trustStore(other.trustStore(), TestCertificates.STORE_PASSWORD)
                            .build(),
                    LeastPrivilegeRole.PASSWORD,
                    "TLS failed");
        }
    }

    @Test
    void tlsToServerWithoutTls_refusedClearly() {
        try (PostgresServer plain = PostgresServer.start()) {
            long start = System.nanoTime();
            Throwable t = catchThrowable(() -> PostgresLockProvider.builder()
                    .jdbcUrl(plain.jdbcUrl())
                    .options(options()
                            .mutate()
                            .credentials(Credentials.of(plain.user(), plain.password()))
                            .tls(TlsOptions.builder()
                                    .trustCertificates(certs.caCertificate())
                                    .build())
                            .build())
                    .build());
            assertThat(t).isInstanceOf(LockConfigurationException.class).hasMessageContaining("SSL");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(1000);
        }
    }

    /**
     * A refusal fails the start at once, within about one round trip, not after the pool's wait
     * (10 s here), and shows the password nowhere.
     */
    private void assertRefused(TlsOptions tls, String password, String expected) {
        try (LogCapture logs = LogCapture.start()) {
            long start = System.nanoTime();
            Throwable t = catchThrowable(() -> provider(tls, LeastPrivilegeRole.ROLE, password));
            long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(t).isInstanceOf(LockConfigurationException.class).hasMessageContaining(expected);
            assertThat(elapsedMillis).as("time to the refusal").isLessThan(1000);
            assertThat(LogCapture.fullText(t)).doesNotContain(password, TestCertificates.STORE_PASSWORD);
            PostgresLockProvider.Builder b = PostgresLockProvider.builder()
                    .jdbcUrl(url())
                    .options(options()
                            .mutate()
                            .credentials(Credentials.of(LeastPrivilegeRole.ROLE, password))
                            .tls(tls)
                            .build());
            assertThat(b.toString()).doesNotContain(password, TestCertificates.STORE_PASSWORD);
            assertThat(logs.text()).doesNotContain(password, TestCertificates.STORE_PASSWORD);
        }
    }

    @Test
    void heldRowDeletedByHand_deleteWaitsOnTheHolder_neverTwoHolders() {
        PostgresLockProvider a = lockRole();
        PostgresLockProvider b = lockRole();
        String name = "row-deleted";
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        assertThatThrownBy(() -> db.executeAsSuperuser(
                        "SET lock_timeout = '1s'; DELETE FROM distlock_locks WHERE name = '" + name + "'"))
                .hasMessageContaining("lock timeout");
        assertThat(held.isValid()).isTrue();
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        assertThat(held.release()).isTrue();
    }

    @Test
    void secrets_wholeSessionWithClientLoggersAtTrace_appearInNoLogLine() {
        String logged = LogCapture.wholeSessionAtTrace(this::lockRole, "trace-capture", () -> {});
        LogCapture.assertNoSecret(logged, LeastPrivilegeRole.PASSWORD);
    }
}
