package io.distlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockConfigurationException;
import io.distlock.LockProviders;
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
                Arguments.of("redlock://u:" + PW + "@" + NODES + "?tlsCaFile=/nonexistent/ca.pem", "tlsCaFile"),
                Arguments.of(
                        "redlock://u:" + PW + "@" + NODES + "?tlsCaFile="
                                + Path.of("pom.xml").toAbsolutePath(),
                        "require tls=true"),
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
        RedlockOptions o = RedlockOptions.builder().username("u").password(PW).build();
        assertThat(o.toString()).contains("password=****").doesNotContain(PW);
        assertThat(o.mutate().build().toString()).doesNotContain(PW);
        assertThat(o.mutate().toString()).doesNotContain(PW);
        assertThat(RedlockLockProvider.builder().options(o).toString()).doesNotContain(PW);
    }

    @Test
    void options_tlsSettingsWithoutTls_rejectedNamingTheRule() {
        assertThatThrownBy(() ->
                        RedlockOptions.builder().tlsCaFile(Path.of("pom.xml")).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("require tls=true");
        assertThatThrownBy(() -> RedlockOptions.builder().tlsCaFile(Path.of("/nonexistent/ca.pem")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tlsCaFile must be a readable file");
    }

    @Test
    void provider_tlsCaFileNotPem_rejectedNamingTheFileWithoutPassword() {
        assertThatThrownBy(() -> RedlockLockProvider.builder()
                        .nodes(NODES.split(","))
                        .options(RedlockOptions.builder()
                                .tls(true)
                                .tlsCaFile(Path.of("pom.xml"))
                                .password(PW)
                                .build())
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tlsCaFile")
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
