package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockConfigurationException;
import io.distlock.LockProviders;
import io.distlock.zookeeper.internal.ZooKeeperLockProviderFactory;
import java.net.URI;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile URIs and options: each is rejected with a {@link LockConfigurationException} that names
 * the argument and the rule, and never contains a password (which every URI here carries).
 */
class ZooKeeperHostileConfigTest {
    private static final String PW = "Hunter2-zk-3e7f";

    static Stream<Arguments> badUris() {
        String pom = Path.of("pom.xml").toAbsolutePath().toString();
        return Stream.of(
                Arguments.of("zookeeper://u:" + PW + "@", "host:port"),
                Arguments.of("zookeeper://u:" + PW + "@/chroot", "host:port"),
                Arguments.of("zookeeper://u:" + PW + "@h:0", "port"),
                Arguments.of("zookeeper://u:" + PW + "@h:70000", "port"),
                Arguments.of("zookeeper://u:" + PW + "@h:abc", "port"),
                Arguments.of("zookeeper://u:" + PW + "@h:1,,h:2", "connectString"),
                Arguments.of("zookeeper://" + PW + "@h:1", "user:password"),
                Arguments.of("zookeeper://u:@h:1", "digest password"),
                Arguments.of("zookeeper://u:" + PW + "@h:1?sesionTimeout=1s", "sesionTimeout"),
                Arguments.of("zookeeper://u:" + PW + "@h:1?password=" + PW, "password"),
                Arguments.of("zookeeper://u:" + PW + "@h:1?rootPath=/a//b", "rootPath"),
                Arguments.of("zookeeper://u:" + PW + "@h:1?tls=true&tlsTrustStore=/nonexistent.p12", "tlsTrustStore"),
                Arguments.of(
                        "zookeeper://u:" + PW + "@h:1?tlsTrustStore=" + pom + "&tlsTrustStorePassword=" + PW,
                        "tlsTrustStore requires tls=true"),
                Arguments.of(
                        "zookeeper://u:" + PW + "@h:1?tls=true&tlsTrustStorePassword=" + PW, "needs tlsTrustStore"),
                Arguments.of("zookeeper://u:" + PW + "@h:1?tls=perhaps", "tls"),
                Arguments.of("zookeeper://u:" + PW + " x@h:1", "malformed"));
    }

    @ParameterizedTest
    @MethodSource("badUris")
    void open_badUri_configurationErrorNamingRuleWithoutPassword(String uri, String rule) {
        assertThatThrownBy(() -> LockProviders.open(uri))
                .isInstanceOf(LockConfigurationException.class)
                .satisfies(e -> assertThat(chain(e)).containsIgnoringCase(rule).doesNotContain(PW));
    }

    @Test
    void options_toString_neverShowsPasswords() {
        ZooKeeperLockOptions o = ZooKeeperLockProviderFactory.parse(URI.create("zookeeper://u:" + PW
                + "@h:1?tls=true&tlsTrustStore=" + Path.of("pom.xml").toAbsolutePath() + "&tlsTrustStorePassword="
                + PW + "x"));
        assertThat(o.toString())
                .contains("digestPassword=****", "tlsTrustStorePassword=****", "tls=true")
                .doesNotContain(PW);
        assertThat(o.mutate().build().toString()).doesNotContain(PW);
        assertThat(o.mutate().toString()).doesNotContain(PW);
        assertThat(ZooKeeperLockProvider.builder().options(o).toString()).doesNotContain(PW);
    }

    @Test
    void options_trustStoreRules_namedInErrors() {
        assertThatThrownBy(() -> ZooKeeperLockOptions.builder().tlsTrustStore(Path.of("/nonexistent.p12"), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tlsTrustStore must be a readable file");
        assertThatThrownBy(() -> ZooKeeperLockOptions.builder().tlsTrustStore(Path.of("pom.xml"), ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tlsTrustStorePassword must not be empty");
        assertThatThrownBy(() -> ZooKeeperLockOptions.builder()
                        .tlsTrustStore(Path.of("pom.xml"), null)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tlsTrustStore requires tls=true");
    }

    static String chain(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            b.append(t).append('\n');
        }
        return b.toString();
    }
}
