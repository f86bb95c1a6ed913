package io.distlock.mysql.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.TlsOptions;
import io.distlock.mysql.MySqlLockOptions;
import io.distlock.testing.servers.TestCertificates;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class MySqlDialectTest {

    @Test
    void waitTimeoutSeconds_roundsLeaseUpToWholeSecondsAtLeastOne() {
        assertThat(MySqlDialect.waitTimeoutSeconds(Duration.ofMillis(300))).isEqualTo(1);
        assertThat(MySqlDialect.waitTimeoutSeconds(Duration.ofMillis(2001))).isEqualTo(3);
        assertThat(MySqlDialect.waitTimeoutSeconds(Duration.ofSeconds(2))).isEqualTo(2);
        assertThat(MySqlDialect.of(MySqlLockOptions.defaults()).armExpirySql(Duration.ofSeconds(30)))
                .isEqualTo("SET SESSION wait_timeout = 30");
    }

    @Test
    void statements_nameTheOptionsTables() {
        MySqlDialect d =
                MySqlDialect.of(MySqlLockOptions.builder().table("locks").build());
        assertThat(d.claimSql()).isEqualTo("SELECT name FROM locks WHERE name = ? FOR UPDATE SKIP LOCKED");
        assertThat(d.tokenSql())
                .isEqualTo("INSERT INTO locks_token (id, token) VALUES (1, LAST_INSERT_ID(CAST(UNIX_TIMESTAMP(NOW(6))"
                        + " * 1000000 AS SIGNED))) ON DUPLICATE KEY UPDATE token = LAST_INSERT_ID(GREATEST(token + 1,"
                        + " CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS SIGNED)))");
        assertThat(d.tables()).containsExactly("locks", "locks_token");
        assertThat(d.ddl()).hasSize(2).allSatisfy(ddl -> assertThat(ddl).startsWith("CREATE TABLE IF NOT EXISTS"));
    }

    @Test
    void connectorJProperties_tlsOn_verifyIdentityWithTheTrustStore() {
        try (TestCertificates certs = TestCertificates.generate()) {
            MySqlLockOptions options = MySqlLockOptions.builder()
                    .tls(TlsOptions.builder()
                            .trustStore(certs.trustStore(), TestCertificates.STORE_PASSWORD)
                            .build())
                    .build();
            String url = ConnectorJSettings.jdbcUrl("jdbc:mysql://h:3306/db", options);
            assertThat(url)
                    .startsWith("jdbc:mysql://h:3306/db?sslMode=VERIFY_IDENTITY&trustCertificateKeyStoreUrl=")
                    .contains("&trustCertificateKeyStoreType=PKCS12&trustCertificateKeyStorePassword=");
            assertThatThrownBy(() -> ConnectorJSettings.jdbcUrl("jdbc:mysql://h:3306/db?sslMode=DISABLED", options))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("sslMode");
        }
        String plain = "jdbc:mysql://h:3306/db?sslMode=DISABLED";
        assertThat(ConnectorJSettings.jdbcUrl(plain, MySqlLockOptions.defaults()))
                .isEqualTo(plain);
        Properties p = ConnectorJSettings.properties(MySqlLockOptions.defaults());
        assertThat(p.getProperty("connectTimeout")).isEqualTo("2000");
        assertThat(p.getProperty("useServerPrepStmts")).isEqualTo("true");
    }
}
