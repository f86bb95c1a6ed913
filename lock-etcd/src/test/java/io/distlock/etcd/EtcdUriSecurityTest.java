package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.distlock.LockConfigurationException;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.testing.LogCapture;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed etcd URIs and options fail with a {@link LockConfigurationException} naming the part
 * and the rule, and the password never shows in a message, a cause, {@code toString()}. No I/O.
 */
class EtcdUriSecurityTest {
    static final String SECRET = "S3cr-t";

    /** URI, a fragment the message must contain. Each URI carries {@link #SECRET} somewhere. */
    static List<String[]> badUris() {
        return List.of(
                new String[] {"etcd://u:" + SECRET + "@", "host:port"},
                new String[] {"etcd://u:" + SECRET + "@/prefix/", "host:port"},
                new String[] {"etcd:///prefix/?password=" + SECRET, "host:port"},
                new String[] {"etcd://u:" + SECRET + "@127.0.0.1:99999", "port must be 1..65535"},
                new String[] {"etcd://u:" + SECRET + "@127.0.0.1:0", "port must be 1..65535"},
                new String[] {"etcd://u:" + SECRET + "@127.0.0.1:abc", "endpoint must be host:port"},
                new String[] {"etcd://u:" + SECRET + "@127.0.0.1:2379,,x:1", "empty endpoint"},
                new String[] {"etcd://u:" + SECRET + "@h%20st:2379", "endpoint must be host:port"},
                // the password may hold '@' and ':' (raw), and is still masked
                new String[] {"etcd://u:a@" + SECRET + ":x@127.0.0.1:abc", "endpoint must be host:port"},
                new String[] {"etcd://u:" + SECRET + "%40%3A@127.0.0.1:2379?bogus=1&Password=x", "unknown parameter"},
                new String[] {"etcd://127.0.0.1:2379?password=" + SECRET + "&user=u&leaseTime=-3s", "leaseTime"},
                new String[] {"etcd://u:" + SECRET + "@127.0.0.1:2379?requestTimeout=1ms", "requestTimeout"},
                new String[] {
                    "etcd://u:" + SECRET + "@127.0.0.1:2379?tls=maybe", "parameter 'tls' must be true or false"
                },
                new String[] {"etcd://u:" + SECRET + "@127.0.0.1:2379/a*b/", "keyPrefix"},
                new String[] {
                    "etcd://u:" + SECRET + "@127.0.0.1:2379?trustCertificates=/nonexistent/ca.pem", "trustCertificates"
                },
                new String[] {"etcd://u:" + SECRET + "@127.0.0.1:2379?tls=true&tls=false", "given twice"},
                new String[] {"etcd://u:" + SECRET + "@127.0.0.1:2379?connectTimeout=0s", "connectTimeout"},
                new String[] {"etcd://:" + SECRET + "@127.0.0.1:2379", "a password needs a user"});
    }

    @ParameterizedTest
    @MethodSource("badUris")
    void open_badUri_configurationErrorNamingTheRuleWithoutPassword(String uri, String rule) {
        Throwable t = catchThrowable(() -> LockProviders.open(URI.create(uri)).close());
        assertThat(t).as(uri).isInstanceOf(LockConfigurationException.class);
        assertThat(t.getMessage()).as(uri).contains(rule);
        assertThat(LogCapture.fullText(t)).as("stack trace of %s", uri).doesNotContain(SECRET);
    }

    @Test
    void open_credentialsInUri_neverInToString() {
        for (String uri : List.of(
                "etcd://u:" + SECRET + "@127.0.0.1:1",
                "etcd://u:" + SECRET + "%40x@127.0.0.1:1",
                "etcd://127.0.0.1:1?user=u&password=" + SECRET)) {
            try (LockProvider p = LockProviders.open(URI.create(uri))) {
                EtcdLockProvider e = (EtcdLockProvider) p;
                assertThat(e.options().credentials().orElseThrow().password()).startsWith(SECRET);
                assertThat(p.toString()).doesNotContain(SECRET).contains("password=****");
                assertThat(e.options().toString()).doesNotContain(SECRET);
                assertThat(e.options().mutate().build().toString()).doesNotContain(SECRET);
            }
        }
    }
}
