package io.distlock.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockConfigurationException;
import io.distlock.LockNames;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.TlsOptions;
import io.distlock.build.ReadmeExamples;
import io.distlock.testing.LogCapture;
import io.distlock.testing.servers.MariaDbServer;
import io.distlock.testing.servers.TestCertificates;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * MariaDB with TLS (certificates generated for the test) and the README's least-privilege lock user
 * ({@link LeastPrivilegeUser}, created {@code REQUIRE SSL}): the provider works as that user over
 * verified TLS ({@code sslMode=VERIFY_IDENTITY}); the user can do nothing else; wrong credentials, a
 * refused plain connection and an untrusted server fail at once with a clear {@link
 * LockConfigurationException} that, like every log line, never contains the password; rows edited
 * by hand never make two holders.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MySqlSecurityIT {
    private TestCertificates certs;
    private MariaDbServer db;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeAll
    void startTlsServer() {
        certs = TestCertificates.generate();
        db = MariaDbServer.builder().tls(certs).start();
        LeastPrivilegeUser.create(db, MySqlLockOptions.defaults(), true);
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

    private String tlsUrl(Path trustStore) {
        return "jdbc:mysql://" + db.address() + "/" + db.database()
                + "?sslMode=VERIFY_CA&trustCertificateKeyStoreUrl=" + trustStore.toUri()
                + "&trustCertificateKeyStoreType=PKCS12&trustCertificateKeyStorePassword="
                + TestCertificates.STORE_PASSWORD;
    }

    private TlsOptions trusting(Path trustStore) {
        return TlsOptions.builder()
                .trustStore(trustStore, TestCertificates.STORE_PASSWORD)
                .build();
    }

    private String url() {
        return "jdbc:mysql://" + db.address() + "/" + db.database();
    }

    private MySqlLockProvider provider(String url, String user, String password, MySqlLockOptions options) {
        MySqlLockProvider p = MySqlLockProvider.builder()
                .jdbcUrl(url)
                .options(options.mutate()
                        .credentials(Credentials.of(user, password))
                        .build())
                .leaseTime(Duration.ofSeconds(2))
                .build();
        open.add(p);
        return p;
    }

    private static MySqlLockOptions options() {
        return MySqlLockOptions.builder()
                .createSchema(true) // denied for the lock user: the provider must cope
                .poolSize(4)
                .poolWaitTimeout(Duration.ofSeconds(10)) // generous: CI machines are slow
                .build();
    }

    private MySqlLockProvider lockUser() {
        String address = db.address();
        Path caStore = certs.trustStore();
        String trustStorePassword = TestCertificates.STORE_PASSWORD;
        String secret = LeastPrivilegeUser.PASSWORD;
        MySqlLockOptions options = options();
        // README-BEGIN secure-configuration
        MySqlLockProvider locks = MySqlLockProvider.builder()
                .jdbcUrl("jdbc:mysql://" + address + "/distlock_test")
                .options(options.mutate()
                        // the least-privilege user above, created REQUIRE SSL
                        .credentials(Credentials.of("distlock_app", secret))
                        // sslMode=VERIFY_IDENTITY with a PKCS#12 store holding the CA
                        .tls(TlsOptions.builder()
                                .trustStore(caStore, trustStorePassword)
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
                Path.of("src/test/java/io/distlock/mysql/MySqlSecurityIT.java"),
                "secure-configuration");
    }

    @Test
    void lockUser_overVerifiedTls_acquiresExcludesReleases() throws Exception {
        MySqlLockProvider a = lockUser();
        MySqlLockProvider b = lockUser();
        Lease held = a.lock("tls-least-privilege").tryAcquire().orElseThrow();
        try (Statement s = a.connection(held).createStatement();
                ResultSet rs = s.executeQuery("SHOW SESSION STATUS LIKE 'Ssl_cipher'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(2)).as("the lock connection's TLS cipher").isNotBlank();
        }
        assertThat(b.lock("tls-least-privilege").tryAcquire()).isEmpty();
        assertThat(held.release()).isTrue();
        Lease next = b.lock("tls-least-privilege").tryAcquire().orElseThrow();
        assertThat(next.fencingToken().getAsLong())
                .isGreaterThan(held.fencingToken().getAsLong());
        assertThat(next.release()).isTrue();
    }

    @Test
    void lockUser_openedFromUriWithTrustStore_works() {
        String uri = "mysql://" + LeastPrivilegeUser.USER + ":"
                + URLEncoder.encode(LeastPrivilegeUser.PASSWORD, StandardCharsets.UTF_8) + "@" + db.address() + "/"
                + db.database() + "?createSchema=true&leaseTime=2s&poolWaitTimeout=10s&trustStore="
                + URLEncoder.encode(certs.trustStore().toString(), StandardCharsets.UTF_8)
                + "&trustStorePassword=" + TestCertificates.STORE_PASSWORD;
        LockProvider p = LockProviders.open(URI.create(uri));
        open.add(p);
        assertThat(p.toString())
                .doesNotContain(LeastPrivilegeUser.PASSWORD, TestCertificates.STORE_PASSWORD)
                .contains("trust=store");
        Lease l = p.lock("from-uri").tryAcquire().orElseThrow();
        assertThat(l.release()).isTrue();
    }

    @Test
    void lockUser_canDoNothingElse() throws Exception {
        try (Connection c = DriverManager.getConnection(
                tlsUrl(certs.trustStore()), LeastPrivilegeUser.USER, LeastPrivilegeUser.PASSWORD)) {
            for (String sql : List.of(
                    "CREATE TABLE intruder (id INT)",
                    "DROP TABLE distlock_locks",
                    "DELETE FROM distlock_locks",
                    "DELETE FROM distlock_locks_token",
                    "ALTER TABLE distlock_locks_token MODIFY token INT",
                    "SELECT * FROM mysql.user",
                    "CREATE DATABASE intruder")) {
                try (Statement s = c.createStatement()) {
                    assertThatThrownBy(() -> s.execute(sql))
                            .as(sql)
                            .isInstanceOf(SQLException.class)
                            .hasMessageContaining("denied");
                }
            }
        }
    }

    @Test
    void lockUser_tablesMissing_clearErrorNamingTheScript() {
        Throwable t = catchThrowable(() -> provider(
                url(),
                LeastPrivilegeUser.USER,
                LeastPrivilegeUser.PASSWORD,
                options()
                        .mutate()
                        .tls(trusting(certs.trustStore()))
                        .table("not_created")
                        .build()));
        assertThat(t)
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("not_created")
                .hasMessageContaining("schema.sql");
    }

    @Test
    void lockUser_plainConnection_refusedClearly() {
        assertRefused(
                db.jdbcUrl(), // sslMode=DISABLED
                TlsOptions.disabled(),
                LeastPrivilegeUser.USER,
                LeastPrivilegeUser.PASSWORD,
                "refused the credentials or the");
    }

    @Test
    void wrongPassword_refusedClearly_passwordNowhere() {
        assertRefused(
                url(), trusting(certs.trustStore()), LeastPrivilegeUser.USER, "Wr0ng-pw-x", "refused the credentials");
    }

    @Test
    void untrustedServerCertificate_refusedClearly() {
        try (TestCertificates other = TestCertificates.generate()) {
            assertRefused(
                    url(), trusting(other.trustStore()), LeastPrivilegeUser.USER, LeastPrivilegeUser.PASSWORD, "TLS");
        }
    }

    /**
     * A refusal fails the start at once, within about one round trip, not after the pool's wait
     * (10 s here), and shows the password nowhere.
     */
    private void assertRefused(String url, TlsOptions tls, String user, String password, String expected) {
        try (LogCapture logs = LogCapture.start()) {
            long start = System.nanoTime();
            Throwable t = catchThrowable(() ->
                    provider(url, user, password, options().mutate().tls(tls).build()));
            long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(t).isInstanceOf(LockConfigurationException.class).hasMessageContaining(expected);
            assertThat(elapsedMillis).as("time to the refusal").isLessThan(1000);
            assertThat(LogCapture.fullText(t)).doesNotContain(password, TestCertificates.STORE_PASSWORD);
            MySqlLockProvider.Builder b = MySqlLockProvider.builder()
                    .jdbcUrl(url)
                    .options(options()
                            .mutate()
                            .credentials(Credentials.of(user, password))
                            .tls(tls)
                            .build());
            assertThat(b.toString()).doesNotContain(password, TestCertificates.STORE_PASSWORD);
            assertThat(logs.text()).doesNotContain(password, TestCertificates.STORE_PASSWORD);
        }
    }

    @Test
    void heldRowDeletedByHand_deleteWaitsOnTheHolder_neverTwoHolders() throws Exception {
        MySqlLockProvider a = lockUser();
        MySqlLockProvider b = lockUser();
        String name = "row-deleted";
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        try (Connection admin = db.connect();
                Statement s = admin.createStatement()) {
            s.execute("SET SESSION innodb_lock_wait_timeout = 1");
            assertThatThrownBy(() ->
                            s.executeUpdate("DELETE FROM distlock_locks WHERE name = '" + LockNames.encode(name) + "'"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("Lock wait timeout");
        }
        assertThat(held.isValid()).isTrue();
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        assertThat(held.release()).isTrue();
    }

    @Test
    void freeRowRenamedOrCounterSetBackByHand_rowRecreated_tokensKeepIncreasing() throws Exception {
        MySqlLockProvider a = lockUser();
        MySqlLockProvider b = lockUser();
        String name = "row-edited";
        Lease first = a.lock(name).tryAcquire().orElseThrow();
        assertThat(first.release()).isTrue();
        try (Connection admin = db.connect();
                PreparedStatement rename =
                        admin.prepareStatement("UPDATE distlock_locks SET name = 'renamed-by-hand' WHERE name = ?");
                Statement counter = admin.createStatement()) {
            rename.setString(1, LockNames.encode(name));
            assertThat(rename.executeUpdate()).isEqualTo(1);
            assertThat(counter.executeUpdate("UPDATE distlock_locks_token SET token = -7"))
                    .isEqualTo(1);
        }
        Lease second = a.lock(name).tryAcquire().orElseThrow();
        assertThat(second.fencingToken().getAsLong())
                .as("the counter set back by hand: the clock floor keeps tokens above the earlier ones")
                .isGreaterThan(first.fencingToken().getAsLong());
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        assertThat(second.release()).isTrue();
        try (Connection admin = db.connect();
                Statement s = admin.createStatement()) {
            s.executeUpdate("DELETE FROM distlock_locks WHERE name = 'renamed-by-hand'");
        }
    }

    @Test
    void secrets_wholeSessionWithClientLoggersAtTrace_appearInNoLogLine() {
        String logged = LogCapture.wholeSessionAtTrace(this::lockUser, "trace-capture", () -> {});
        LogCapture.assertNoSecret(logged, LeastPrivilegeUser.PASSWORD);
        LogCapture.assertNoSecret(logged, TestCertificates.STORE_PASSWORD);
    }
}
