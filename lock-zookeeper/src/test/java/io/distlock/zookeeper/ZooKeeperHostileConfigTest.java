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
                Arguments.of("zookeeper://u:" + PW + "@h:1?trustStore=/nonexistent.p12", "trustStore"),
                Arguments.of("zookeeper://u:" + PW + "@h:1?trustCertificates=/nonexistent.pem", "trustCertificates"),
                Arguments.of(
                        "zookeeper://u:" + PW + "@h:1?tls=false&trustStore=" + pom + "&trustStorePassword=" + PW,
                        "tls=false"),
                Arguments.of("zookeeper://u:" + PW + "@h:1?trustStorePassword=" + PW, "needs trustStore"),
                Arguments.of("zookeeper://u:" + PW + "@h:1?tls=true", "trustCertificates or trustStore"),
                Arguments.of(
                        "zookeeper://u:" + PW + "@h:1?trustCertificates=" + pom + "&clientCertificate=" + pom
                                + "&clientKey=" + pom,
                        "clientCertificate is not supported"),
                Arguments.of("zookeeper://u:" + PW + "@h:1?clientCertificate=" + pom, "clientKey"),
                Arguments.of("zookeeper://u:" + PW + "@h:1?requestTimeout=9s", "requestTimeout"),
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
        ZooKeeperLockProviderFactory.Parsed p = ZooKeeperLockProviderFactory.parse(URI.create("zookeeper://u:" + PW
                + "@h:1?trustStore=" + Path.of("pom.xml").toAbsolutePath() + "&trustStorePassword=" + PW + "x"));
        ZooKeeperLockOptions o = p.options();
        assertThat(o.toString()).contains("password=****", "store ").doesNotContain(PW);
        assertThat(o.mutate().build().toString()).doesNotContain(PW);
        assertThat(o.mutate().toString()).doesNotContain(PW);
        assertThat(p.builder().toString()).doesNotContain(PW);
    }

    static String chain(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            b.append(t).append('\n');
        }
        return b.toString();
    }
}
