package io.distlock.postgresql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Credentials;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PostgresLockOptionsTest {
    private static final Path CACERTS = Path.of(System.getProperty("java.home"), "lib", "security", "cacerts");

    @Test
    void defaults_areTheDocumentedOnes() {
        PostgresLockOptions o = PostgresLockOptions.defaults();
        assertThat(o.table()).isEqualTo("distlock_locks");
        assertThat(o.tokenSequence()).isEqualTo("distlock_locks_token");
        assertThat(o.createSchema()).isFalse();
        assertThat(o.poolSize())
                .isEqualTo(PostgresLockOptions.DEFAULT_POOL_SIZE)
                .isEqualTo(10);
        assertThat(o.poolWaitTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.prepareThreshold()).isEmpty();
        assertThat(o.credentials()).isEmpty();
        assertThat(o.tls()).isEqualTo(TlsOptions.disabled());
        assertThat(o.timeouts()).isEqualTo(TimeoutOptions.defaults());
    }

    @Test
    void setters_badValues_rejectedNamingTheOptionAndTheRule() {
        PostgresLockOptions.Builder b = PostgresLockOptions.builder();
        assertThatThrownBy(() -> b.table("Locks")).hasMessageContaining("table must match [a-z_][a-z0-9_]{0,56}");
        assertThatThrownBy(() -> b.table("a".repeat(58))).hasMessageContaining("table must match");
        assertThatThrownBy(() -> b.table("x;drop")).hasMessageContaining("table must match");
        assertThatThrownBy(() -> b.poolSize(0)).hasMessageContaining("poolSize must be between 1 and 10000 (was 0)");
        assertThatThrownBy(() -> b.poolWaitTimeout(Duration.ofMillis(10)))
                .hasMessageContaining("poolWaitTimeout must be at least 250ms");
        assertThatThrownBy(() -> b.prepareThreshold(-1))
                .hasMessageContaining("prepareThreshold must be at least 0")
                .hasMessageContaining("(was -1)");
        assertThatThrownBy(() -> b.credentials(Credentials.password("pw")))
                .hasMessageContaining("credentials must name a role");
        assertThatThrownBy(() -> b.tls(
                        TlsOptions.builder().clientCertificate(CACERTS, CACERTS).build()))
                .hasMessageContaining("tls.clientCertificate");
    }

    @Test
    void mutate_keepsEverySetting_toStringNeverShowsThePassword() {
        PostgresLockOptions o = PostgresLockOptions.builder()
                .table("locks")
                .createSchema(true)
                .poolSize(3)
                .poolWaitTimeout(Duration.ofSeconds(1))
                .prepareThreshold(0)
                .credentials(Credentials.of("app", "s3cret-pw"))
                .tls(TlsOptions.builder().trustCertificates(CACERTS).build())
                .build();
        PostgresLockOptions copy = o.mutate().build();
        assertThat(copy.table()).isEqualTo("locks");
        assertThat(copy.tokenSequence()).isEqualTo("locks_token");
        assertThat(copy.createSchema()).isTrue();
        assertThat(copy.poolSize()).isEqualTo(3);
        assertThat(copy.poolWaitTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(copy.prepareThreshold()).hasValue(0);
        assertThat(copy.credentials()).isEqualTo(o.credentials());
        assertThat(copy.tls()).isEqualTo(o.tls());
        assertThat(o.toString()).contains("locks", "app").doesNotContain("s3cret-pw");
    }

    @Test
    void builder_jdbcUrlAndSources_checked() {
        assertThatThrownBy(() -> PostgresLockProvider.builder().jdbcUrl("jdbc:mysql://h/db"))
                .hasMessageContaining("jdbcUrl must start with jdbc:postgresql:");
        assertThatThrownBy(() -> PostgresLockProvider.builder().build())
                .hasMessageContaining("jdbcUrl or dataSource must be set");
        assertThatThrownBy(() -> PostgresLockProvider.builder()
                        .dataSource(new org.postgresql.ds.PGSimpleDataSource())
                        .options(PostgresLockOptions.builder()
                                .credentials(Credentials.of("a", "b"))
                                .build())
                        .build())
                .hasMessageContaining("configure them on your dataSource");
        assertThatThrownBy(() -> PostgresLockProvider.builder()
                        .jdbcUrl("jdbc:postgresql://127.0.0.1:1/db?sslmode=disable")
                        .options(PostgresLockOptions.builder()
                                .tls(TlsOptions.enabled())
                                .build())
                        .build())
                .hasMessageContaining("jdbcUrl sets TLS parameter 'sslmode'");
    }
}
