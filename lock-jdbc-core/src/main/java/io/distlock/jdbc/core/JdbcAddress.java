package io.distlock.jdbc.core;

import io.distlock.Credentials;
import io.distlock.TlsOptions;
import io.distlock.spi.UriParameters;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/** Where a SQL backend's connections come from: the checks its provider builder makes. */
public final class JdbcAddress {
    private JdbcAddress() {}

    /**
     * Checks a {@code jdbcUrl} given to a builder.
     *
     * @throws IllegalArgumentException unless it starts with one of {@code prefixes} (the first is
     *     named in the message; the URL is shown without its password)
     */
    public static String checkJdbcUrl(String jdbcUrl, String... prefixes) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl must not be null");
        for (String prefix : prefixes) {
            if (jdbcUrl.startsWith(prefix)) {
                return jdbcUrl;
            }
        }
        throw new IllegalArgumentException(
                "jdbcUrl must start with " + prefixes[0] + " (was '" + UriParameters.redact(jdbcUrl) + "')");
    }

    /**
     * Checks that exactly one of {@code jdbcUrl} and {@code dataSource} is set, and that credentials
     * and TLS, which apply to the pool the provider opens itself, are not set with a {@code
     * dataSource}.
     *
     * @throws IllegalArgumentException naming the rule broken
     */
    public static void checkOneSource(
            String jdbcUrl, DataSource dataSource, Optional<Credentials> credentials, TlsOptions tls) {
        if (jdbcUrl != null && dataSource != null) {
            throw new IllegalArgumentException("set either jdbcUrl or dataSource, not both");
        }
        if (jdbcUrl == null && dataSource == null) {
            throw new IllegalArgumentException("jdbcUrl or dataSource must be set");
        }
        if (dataSource != null && (credentials.isPresent() || !tls.equals(TlsOptions.disabled()))) {
            throw new IllegalArgumentException("options.credentials and options.tls apply to the pool the"
                    + " provider opens from a jdbcUrl; configure them on your dataSource instead");
        }
    }
}
