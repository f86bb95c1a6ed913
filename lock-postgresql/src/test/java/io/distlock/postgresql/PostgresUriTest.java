package io.distlock.postgresql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.distlock.BackendUnavailableException;
import io.distlock.LockConfigurationException;
import io.distlock.LockProviders;
import io.distlock.testing.LogCapture;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed {@code postgresql://} URIs fail before any I/O with a {@link LockConfigurationException}
 * naming the part and the rule, and nothing can be smuggled into the JDBC URL; the password never
 * shows in a message, a cause or a log line.
 */
class PostgresUriTest {
    static final String SECRET = "S3cr-t";
    /** A readable file (the JDK's trust store). */
    static final String CACERTS = System.getProperty("java.home") + "/lib/security/cacerts";

    static List<String[]> badUris() {
        String u = "postgresql://u:" + SECRET + "@";
        return List.of(
                new String[] {u + "/db", "a host is required"},
                new String[] {u + "127.0.0.1:99999/db", "port must be 1..65535"},
                new String[] {u + "127.0.0.1:abc/db", "host[:port] is malformed"},
                new String[] {u + "127.0.0.1:5432", "a database is required"},
                new String[] {u + "127.0.0.1:5432/a/b", "a database is required"},
                new String[] {u + "127.0.0.1:5432/db%3Fsslmode=disable", "database must match"},
                new String[] {u + "127.0.0.1:5432/db%26socketFactory=x", "database must match"},
                new String[] {u + "127.0.0.1:5432/db?sslmode=disable", "unknown parameter(s) [sslmode]"},
                new String[] {u + "127.0.0.1:5432/db?trustStorePassword=" + SECRET, "needs 'trustStore'"},
                new String[] {
                    u + "127.0.0.1:5432/db?trustCertificates=/nonexistent/ca.pem",
                    "trustCertificates must be a readable file"
                },
                new String[] {u + "127.0.0.1:5432/db?tls=false&trustCertificates=" + CACERTS, "'tls' is false"},
                new String[] {
                    u + "127.0.0.1:5432/db?clientCertificate=" + CACERTS + "&clientKey=" + CACERTS,
                    "tls.clientCertificate"
                },
                new String[] {u + "127.0.0.1:5432/db?connectTimeout=0s", "connectTimeout must be positive"},
                new String[] {u + "127.0.0.1:5432/db?poolWaitTimeout=1ms", "poolWaitTimeout must be at least"},
                new String[] {"postgresql://u@127.0.0.1:5432/db?bogus=1&password=" + SECRET, "unknown parameter"},
                new String[] {u + "127.0.0.1:5432/db?leaseTime=-1s", "leaseTime"},
                new String[] {u + "127.0.0.1:5432/db?poolSize=0", "poolSize"},
                new String[] {u + "127.0.0.1:5432/db?prepareThreshold=-1", "prepareThreshold must be at least 0"},
                new String[] {u + "127.0.0.1:5432/db?prepareThreshold=x", "'prepareThreshold' must be an integer"},
                new String[] {u + "127.0.0.1:5432/db?table=Locks", "table must match"},
                new String[] {u + "127.0.0.1:5432/db?table=x%22y", "table must match"});
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
    void open_serverUnreachable_unavailableWithoutPasswordInErrorOrLogs() {
        try (LogCapture logs = LogCapture.start()) {
            Throwable t = catchThrowable(() ->
                    LockProviders.open(URI.create("postgres://u:" + SECRET + "@127.0.0.1:1/db?poolWaitTimeout=300ms")));
            assertThat(t).isInstanceOf(BackendUnavailableException.class);
            assertThat(LogCapture.fullText(t)).doesNotContain(SECRET);
            assertThat(logs.text()).doesNotContain(SECRET);
        }
    }
}
