package io.distlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Credentials;
import io.distlock.LockConfigurationException;
import io.distlock.LockProviders;
import io.distlock.TlsOptions;
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
class RedlockHostileConfigTest {
    private static final String PW = "Hunter2-redlock-77ab";
    private static final String NODES = "127.0.0.1:1,127.0.0.1:2,127.0.0.1:3";

    static Stream<Arguments> badUris() {
        return Stream.of(
                Arguments.of("redlock://" + PW + "@127.0.0.1:1,127.0.0.1:2", "at least 3"),
                Arguments.of("redlock://u:" + PW + "@", "needs nodes"),
                Arguments.of("redlock://u:" + PW + "@/x", "needs nodes"),
                Arguments.of("redlock://u:" + PW + "@127.0.0.1:1,127.0.0.1:2,127.0.0.1:0", "port"),
                Arguments.of("redlock://u:" + PW + "@127.0.0.1:1,127.0.0.1:2,127.0.0.1:70000", "port"),
                Arguments.of("redlock://u:" + PW + "@127.0.0.1:1,127.0.0.1:2,127.0.0.1:abc", "port must be a number"),
                Arguments.of("redlock://u:" + PW + "@127.0.0.1:1,,127.0.0.1:3", "empty node"),
                Arguments.of("redlock://u:" + PW + "@127.0.0.1:1,127.0.0.1:2", "at least 3"),
                Arguments.of("redlock://u:" + PW + "@127.0.0.1:1,127.0.0.1:1,127.0.0.1:2", "distinct"),
                Arguments.of("redlock://u:" + PW + "@" + NODES + "/path", "no path"),
                Arguments.of("redlock://u:" + PW + "@" + NODES + "?nodeTimout=1s", "nodeTimout"),
                Arguments.of("redlock://u:" + PW + "@" + NODES + "?password=" + PW, "password"),
                Arguments.of("redlock://u:" + PW + "@" + NODES + "?poolSize=0", "poolSize"),
                Arguments.of(
                        "redlocks://u:" + PW + "@" + NODES + "?trustCertificates=/nonexistent/ca.pem",
                        "trustCertificates must be a readable file"),
                Arguments.of(
                        "redlock://u:" + PW + "@" + NODES + "?trustCertificates="
                                + Path.of("pom.xml").toAbsolutePath(),
                        "trustCertificates needs TLS"),
                Arguments.of("redlock://u:" + PW + "@" + NODES + "?leaseTime=80ms", "nodeTimeout must be below half"),
                Arguments.of("redlock://u:" + PW + "@127.0.0.1:1,::1:2,127.0.0.1:3", "host:port"),
                Arguments.of("redlock://u:" + PW + "@" + NODES + "?tls=maybe", "tls"),
                Arguments.of("redlock://u:" + PW + " x@" + NODES, "malformed"));
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
        RedlockLockOptions o = RedlockLockOptions.builder()
                .credentials(Credentials.of("u", PW))
                .build();
        assertThat(o.toString()).contains("password=****").doesNotContain(PW);
        assertThat(o.mutate().build().toString()).doesNotContain(PW);
        assertThat(o.mutate().toString()).doesNotContain(PW);
        assertThat(RedlockLockProvider.builder().options(o).toString()).doesNotContain(PW);
        assertThat(RedlockLockProvider.builder()
                        .node("127.0.0.1", 1, Credentials.of("u", PW))
                        .toString())
                .doesNotContain(PW);
    }

    @Test
    void provider_trustCertificatesNotPem_rejectedNamingTheFileWithoutPassword() {
        assertThatThrownBy(() -> RedlockLockProvider.builder()
                        .nodes(NODES.split(","))
                        .options(RedlockLockOptions.builder()
                                .tls(TlsOptions.builder()
                                        .trustCertificates(Path.of("pom.xml"))
                                        .build())
                                .credentials(Credentials.password(PW))
                                .build())
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("trustCertificates")
                .satisfies(e -> assertThat(chain(e)).doesNotContain(PW));
    }

    static String chain(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            b.append(t).append('\n');
        }
        return b.toString();
    }
}
