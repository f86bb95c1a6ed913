package io.distlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The option blocks every backend shares: credentials, TLS, timeouts. */
class SharedOptionBlocksTest {
    @TempDir
    Path dir;

    @Test
    void credentials_toString_neverShowsThePassword() {
        Credentials c = Credentials.of("app", "s3cret-pw");
        assertThat(c.toString()).contains("app").doesNotContain("s3cret-pw");
        assertThat(Credentials.password("s3cret-pw").toString())
                .contains("(default)")
                .doesNotContain("s3cret-pw");
        assertThat(Credentials.password("pw").user()).isEmpty();
        assertThat(c.user()).contains("app");
    }

    @Test
    void credentials_badArguments_nameTheArgument() {
        assertThatThrownBy(() -> Credentials.of(null, "pw")).hasMessageContaining("username");
        assertThatThrownBy(() -> Credentials.of("app", null)).hasMessageContaining("password");
        assertThatThrownBy(() -> Credentials.of("", "pw"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("username");
    }

    @Test
    void tls_oneTrustSourceOnly_andReadableFiles() throws Exception {
        Path ca = Files.writeString(dir.resolve("ca.pem"), "x");
        TlsOptions tls = TlsOptions.builder().trustCertificates(ca).build();
        assertThat(tls.isEnabled()).isTrue();
        assertThat(tls.trustCertificates()).contains(ca);
        assertThat(tls.usesDefaultTrust()).isFalse();
        assertThat(TlsOptions.enabled().usesDefaultTrust()).isTrue();
        assertThat(TlsOptions.disabled().isEnabled()).isFalse();
        assertThatThrownBy(() -> TlsOptions.builder().trustCertificates(ca).trustStore(ca, "pw"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("trustStore")
                .hasMessageContaining("only one trust source");
        assertThatThrownBy(() -> TlsOptions.builder().trustCertificates(ca).sslContext(SSLContext.getDefault()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sslContext");
        assertThatThrownBy(() -> TlsOptions.builder().trustCertificates(dir.resolve("missing.pem")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("trustCertificates must be a readable file");
        assertThatThrownBy(() -> TlsOptions.builder()
                        .enabled(false)
                        .trustCertificates(ca)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TLS is disabled");
    }

    @Test
    void tls_toString_namesTheTrustButNoPassword() throws Exception {
        Path store = Files.writeString(dir.resolve("trust.p12"), "x");
        String text = TlsOptions.builder().trustStore(store, "store-pw").build().toString();
        assertThat(text).contains("trust.p12").doesNotContain("store-pw");
        assertThat(TlsOptions.disabled().toString()).contains("disabled");
    }

    @Test
    void timeouts_checkedAndDerived() {
        assertThat(TimeoutOptions.defaults().connectTimeout()).isEqualTo(TimeoutOptions.DEFAULT_CONNECT_TIMEOUT);
        TimeoutOptions t = TimeoutOptions.of(Duration.ofMillis(300)).withRequestTimeout(Duration.ofSeconds(1));
        assertThat(t.connectTimeout()).isEqualTo(Duration.ofMillis(300));
        assertThat(t.requestTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThatThrownBy(() -> TimeoutOptions.of(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectTimeout must be positive");
        assertThatThrownBy(() -> TimeoutOptions.defaults().withRequestTimeout(Duration.ofHours(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("requestTimeout");
        assertThatThrownBy(() -> TimeoutOptions.defaults().withConnectTimeout(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("connectTimeout");
    }
}
