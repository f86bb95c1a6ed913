package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Credentials;
import io.distlock.LockConfigurationException;
import io.distlock.LockProviders;
import io.distlock.TlsOptions;
import io.distlock.testing.servers.TestCertificates;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile URIs and options: each is rejected with a {@link LockConfigurationException} that names
 * the argument and the rule, and never contains the password (which every URI here carries).
 */
class RedisHostileConfigTest {
    private static final String PW = "Hunter2-pw-9c1b";

    static Stream<Arguments> badUris() {
        return Stream.of(
                Arguments.of("redis://" + PW + "@127.0.0.1:abc", "port must be a number"),
                Arguments.of("redis://u:" + PW + "@", "host"),
                Arguments.of("redis://u:" + PW + "@/0", "host"),
                Arguments.of("redis://u:" + PW + "@127.0.0.1:0", "port must be between 1 and 65535"),
                Arguments.of("redis://u:" + PW + "@127.0.0.1:65536", "port must be between 1 and 65535"),
                Arguments.of("redis://u:" + PW + "@127.0.0.1:abc", "port must be a number"),
                Arguments.of("redis://u:" + PW + "@127.0.0.1:-1", "port"),
                Arguments.of("redis://u:" + PW + "@127.0.0.1:6379/notadb", "database number"),
                Arguments.of("redis://u:" + PW + "@127.0.0.1:6379?leasetime=5s", "leasetime"),
                Arguments.of("redis://u:" + PW + "@127.0.0.1:6379?password=" + PW, "password"),
                Arguments.of("redis://u:" + PW + "@127.0.0.1:6379?poolSize=-3", "poolSize"),
                Arguments.of(
                        "rediss://u:" + PW + "@127.0.0.1:6379?trustCertificates=/nonexistent/ca.pem",
                        "trustCertificates must be a readable file"),
                Arguments.of(
                        "redis://u:" + PW + "@127.0.0.1:6379?trustCertificates="
                                + Path.of("pom.xml").toAbsolutePath(),
                        "trustCertificates needs TLS"),
                Arguments.of("rediss://u:" + PW + "@127.0.0.1:6379?trustStorePassword=" + PW, "needs trustStore"),
                Arguments.of("redis://u:" + PW + "@127.0.0.1:6379?socketTimeout=1s", "socketTimeout"),
                Arguments.of("redis://u:" + PW + "@a:1,b:2", "one host:port"),
                Arguments.of("redis://u:" + PW + "@[::1:6379", "IPv6"),
                Arguments.of("redis-sentinel://u:" + PW + "@h1:26379", "master name"),
                Arguments.of("redis-cluster://u:" + PW + "@a:7000,,b:7001", "empty host"),
                Arguments.of("redis://u:" + PW + " x@127.0.0.1:6379", "malformed"),
                Arguments.of("redis://u:" + PW + "@127.0.0.1:6379?keyPrefix=a{b}", "keyPrefix"));
    }

    @ParameterizedTest
    @MethodSource("badUris")
    void open_badUri_configurationErrorNamingRuleWithoutPassword(String uri, String rule) {
        assertThatThrownBy(() -> LockProviders.open(uri))
                .isInstanceOf(LockConfigurationException.class)
                .satisfies(e -> assertThat(chain(e)).containsIgnoringCase(rule).doesNotContain(PW));
    }

    @Test
    void options_toStringAndMutatedCopy_neverShowPassword() {
        RedisLockOptions o =
                RedisLockOptions.builder().credentials(Credentials.of("u", PW)).build();
        assertThat(o.toString()).contains("password=****").doesNotContain(PW);
        assertThat(o.mutate().build().toString()).doesNotContain(PW);
        assertThat(o.mutate().toString()).doesNotContain(PW);
        assertThat(RedisLockProvider.builder().options(o).toString()).doesNotContain(PW);
    }

    @Test
    void options_trustFileMissing_rejectedNamingTheOption() {
        assertThatThrownBy(() -> TlsOptions.builder().trustCertificates(Path.of("/nonexistent/ca.pem")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("trustCertificates must be a readable file");
    }

    @Test
    void provider_trustCertificatesNotPem_rejectedNamingTheFile() {
        assertThatThrownBy(() -> RedisLockProvider.builder()
                        .standalone("127.0.0.1", 1)
                        .options(RedisLockOptions.builder()
                                .tls(TlsOptions.builder()
                                        .trustCertificates(Path.of("pom.xml"))
                                        .build())
                                .credentials(Credentials.password(PW))
                                .build())
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("trustCertificates")
                .hasMessageContaining("pom.xml")
                .satisfies(e -> assertThat(chain(e)).doesNotContain(PW));
    }

    @Test
    void provider_trustStoreWithWrongPassword_rejectedNamingTheStoreWithoutThePassword() {
        try (TestCertificates certs = TestCertificates.generate()) {
            assertThatThrownBy(() -> RedisLockProvider.builder()
                            .standalone("127.0.0.1", 1)
                            .options(RedisLockOptions.builder()
                                    .tls(TlsOptions.builder()
                                            .trustStore(certs.trustStore(), PW)
                                            .build())
                                    .build())
                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("trustStore")
                    .hasMessageContaining(certs.trustStore().toString())
                    .satisfies(e -> assertThat(chain(e)).doesNotContain(PW));
        }
    }

    static String chain(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            b.append(t).append('\n');
        }
        return b.toString();
    }
}
