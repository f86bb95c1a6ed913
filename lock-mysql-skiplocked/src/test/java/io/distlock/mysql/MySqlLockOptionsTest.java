package io.distlock.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Credentials;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import io.distlock.testing.servers.TestCertificates;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;

class MySqlLockOptionsTest {

    @Test
    void defaults_areDocumentedValues() {
        MySqlLockOptions o = MySqlLockOptions.defaults();
        assertThat(o.table()).isEqualTo("distlock_locks");
        assertThat(o.tokenTable()).isEqualTo("distlock_locks_token");
        assertThat(o.poolSize()).isEqualTo(MySqlLockOptions.DEFAULT_POOL_SIZE);
        assertThat(o.poolWaitTimeout()).isEqualTo(MySqlLockOptions.DEFAULT_POOL_WAIT_TIMEOUT);
        assertThat(o.createSchema()).isFalse();
        assertThat(o.credentials()).isEmpty();
        assertThat(o.tls()).isEqualTo(TlsOptions.disabled());
        assertThat(o.timeouts()).isEqualTo(TimeoutOptions.defaults());
    }

    @Test
    void table_unsafeIdentifier_rejectedNamingTheRule() {
        assertThatThrownBy(() -> MySqlLockOptions.builder().table("locks; DROP TABLE x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("table must match");
        assertThatThrownBy(() -> MySqlLockOptions.builder().table("a".repeat(59)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(MySqlLockOptions.builder().table("a".repeat(58)).build().tokenTable())
                .hasSize(64);
    }

    @Test
    void poolSizeAndPoolWaitTimeout_outOfRange_rejectedNamingTheOption() {
        assertThatThrownBy(() -> MySqlLockOptions.builder().poolSize(0)).hasMessageContaining("poolSize");
        assertThatThrownBy(() -> MySqlLockOptions.builder().poolWaitTimeout(Duration.ofMillis(10)))
                .hasMessageContaining("poolWaitTimeout");
    }

    @Test
    void credentials_withoutUser_rejected() {
        assertThatThrownBy(() -> MySqlLockOptions.builder().credentials(Credentials.password("pw")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("credentials must name a user");
    }

    @Test
    void tls_trustSourcesConnectorJCannotUse_rejectedNamingTheOption() throws Exception {
        try (TestCertificates certs = TestCertificates.generate()) {
            assertThatThrownBy(() -> MySqlLockOptions.builder()
                            .tls(TlsOptions.builder()
                                    .trustCertificates(certs.caCertificate())
                                    .build()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("tls.trustCertificates")
                    .hasMessageContaining("trustStore");
            assertThatThrownBy(() -> MySqlLockOptions.builder()
                            .tls(TlsOptions.builder()
                                    .clientCertificate(certs.serverCertificate(), certs.serverKey())
                                    .build()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("tls.clientCertificate");
            SSLContext context = SSLContext.getDefault();
            assertThatThrownBy(() -> MySqlLockOptions.builder()
                            .tls(TlsOptions.builder().sslContext(context).build()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("tls.sslContext");
            MySqlLockOptions withStore = MySqlLockOptions.builder()
                    .tls(TlsOptions.builder()
                            .trustStore(certs.trustStore(), TestCertificates.STORE_PASSWORD)
                            .build())
                    .build();
            assertThat(withStore.tls().trustStore()).contains(certs.trustStore());
            assertThat(withStore.toString()).doesNotContain(TestCertificates.STORE_PASSWORD);
        }
    }

    @Test
    void mutate_keepsValues_toStringHidesPassword() {
        MySqlLockOptions o = MySqlLockOptions.builder()
                .table("t1")
                .poolSize(3)
                .credentials(Credentials.of("app", "hunter2"))
                .timeouts(TimeoutOptions.of(Duration.ofSeconds(3)))
                .build();
        assertThat(o.mutate().build().toString()).isEqualTo(o.toString());
        assertThat(o.toString()).contains("app").doesNotContain("hunter2");
        assertThat(MySqlLockProvider.builder()
                        .jdbcUrl("jdbc:mysql://h/db?password=hunter2")
                        .options(o)
                        .toString())
                .doesNotContain("hunter2");
    }

    @Test
    void build_dataSourceWithCredentials_rejected() {
        com.zaxxer.hikari.HikariDataSource unused = new com.zaxxer.hikari.HikariDataSource();
        assertThatThrownBy(() -> MySqlLockProvider.builder()
                        .dataSource(unused)
                        .options(MySqlLockOptions.builder()
                                .credentials(Credentials.of("app", "pw"))
                                .build())
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("options.credentials");
        assertThatThrownBy(() -> MySqlLockProvider.builder().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jdbcUrl or dataSource");
    }
}
