package io.distlock.postgresql.internal;

import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.jdbc.core.JdbcUris;
import io.distlock.postgresql.PostgresLockOptions;
import io.distlock.postgresql.PostgresLockProvider;
import io.distlock.spi.LockProviderFactory;
import io.distlock.spi.UriParameters;
import java.net.URI;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Internal (registered through {@link java.util.ServiceLoader}): opens libpq-style URIs {@code
 * postgresql://user[:password]@host[:5432]/db?table=…&createSchema=…&leaseTime=…&poolSize=…&poolWaitTimeout=…&prepareThreshold=…&connectTimeout=…&requestTimeout=…&tls=…&trustCertificates=…&trustStore=…&trustStorePassword=…}
 * ({@code postgres://} too) plus the common {@code autoRenew}, {@code maxHoldTime}, {@code
 * maxRenewals}. {@code trustCertificates} or {@code trustStore} turns TLS on ({@code
 * sslmode=verify-full}); {@code clientCertificate}/{@code clientKey} are read and rejected with the
 * reason. The database name and port are checked, so nothing can be smuggled into the JDBC URL
 * through them. A JDBC URL ({@code jdbc:postgresql://…}) goes to the builder's {@code jdbcUrl}.
 */
public final class PostgresLockProviderFactory implements LockProviderFactory {
    private static final Pattern DATABASE = Pattern.compile("[A-Za-z0-9_$.-]{1,63}");
    private static final String BACKEND = "postgresql";

    @Override
    public Set<String> schemes() {
        return Set.of("postgresql", "postgres");
    }

    @Override
    public LockProvider open(URI uri) {
        return open(uri, UnaryOperator.identity());
    }

    @Override
    public LockProvider open(URI uri, UnaryOperator<LockOptions> customizer) {
        UriParameters params = UriParameters.of(uri, BACKEND);
        String jdbcUrl = jdbcUrl(uri, params);
        LockOptions lockOptions = LockProviderFactory.customize(params.lockOptions(LockOptions.defaults()), customizer);
        PostgresLockOptions options = options(uri, params);
        params.rejectUnknown();
        return PostgresLockProvider.builder()
                .jdbcUrl(jdbcUrl)
                .options(options)
                .lockOptions(lockOptions)
                .build();
    }

    /** {@code jdbc:postgresql://host:port/db}, from checked parts only. */
    private static String jdbcUrl(URI uri, UriParameters params) {
        return "jdbc:postgresql://"
                + JdbcUris.hostPortDatabase(uri, params, 5432, DATABASE, "postgresql://user@host:5432/db");
    }

    private static PostgresLockOptions options(URI uri, UriParameters params) {
        PostgresLockOptions.Builder b = PostgresLockOptions.builder();
        try {
            b.table(params.string("table", PostgresLockOptions.DEFAULT_TABLE));
            b.createSchema(params.bool("createSchema", false));
            b.poolSize(params.integer("poolSize", PostgresLockOptions.DEFAULT_POOL_SIZE));
            b.poolWaitTimeout(JdbcUris.poolWaitTimeout(params, PostgresLockOptions.DEFAULT_POOL_WAIT_TIMEOUT));
            Integer prepareThreshold = params.integer("prepareThreshold", null);
            if (prepareThreshold != null) {
                b.prepareThreshold(prepareThreshold);
            }
            b.timeouts(JdbcUris.timeouts(params));
            JdbcUris.credentials(uri).ifPresent(b::credentials);
            b.tls(JdbcUris.tls(params));
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException(e.getMessage() + " in " + UriParameters.redact(uri), BACKEND, e);
        }
    }
}
