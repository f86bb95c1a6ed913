package io.distlock.mysql.internal;

import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.jdbc.core.JdbcUris;
import io.distlock.mysql.MySqlLockOptions;
import io.distlock.mysql.MySqlLockProvider;
import io.distlock.spi.LockProviderFactory;
import io.distlock.spi.UriParameters;
import java.net.URI;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Internal (registered through {@link java.util.ServiceLoader}): opens {@code
 * mysql://user[:password]@host[:3306]/db?table=…&createSchema=…&leaseTime=…&poolSize=…&poolWaitTimeout=…&connectTimeout=…&requestTimeout=…&tls=…&trustStore=…&trustStorePassword=…}
 * plus the common {@code autoRenew}, {@code maxHoldTime}, {@code maxRenewals}. A {@code trustStore}
 * turns TLS on; {@code trustCertificates} and {@code clientCertificate}/{@code clientKey} are read
 * and rejected with the reason (Connector/J needs key stores). The database name and port are
 * checked, so nothing can be smuggled into the JDBC URL through them.
 */
public final class MySqlLockProviderFactory implements LockProviderFactory {
    private static final Pattern DATABASE = Pattern.compile("[A-Za-z0-9_$]{1,64}");

    @Override
    public Set<String> schemes() {
        return Set.of("mysql");
    }

    @Override
    public LockProvider open(URI uri) {
        return open(uri, UnaryOperator.identity());
    }

    @Override
    public LockProvider open(URI uri, UnaryOperator<LockOptions> customizer) {
        UriParameters params = UriParameters.of(uri, "mysql");
        String jdbcUrl = jdbcUrl(uri, params);
        LockOptions lockOptions = LockProviderFactory.customize(params.lockOptions(LockOptions.defaults()), customizer);
        MySqlLockOptions options = options(uri, params);
        params.rejectUnknown();
        return MySqlLockProvider.builder()
                .jdbcUrl(jdbcUrl)
                .options(options)
                .lockOptions(lockOptions)
                .build();
    }

    /** {@code jdbc:mysql://host:port/db}, from checked parts only. */
    private static String jdbcUrl(URI uri, UriParameters params) {
        return "jdbc:mysql://" + JdbcUris.hostPortDatabase(uri, params, 3306, DATABASE, "mysql://user@host:3306/db");
    }

    private static MySqlLockOptions options(URI uri, UriParameters params) {
        MySqlLockOptions.Builder b = MySqlLockOptions.builder();
        try {
            b.table(params.string("table", MySqlLockOptions.DEFAULT_TABLE));
            b.createSchema(params.bool("createSchema", false));
            b.poolSize(params.integer("poolSize", MySqlLockOptions.DEFAULT_POOL_SIZE));
            b.poolWaitTimeout(JdbcUris.poolWaitTimeout(params, MySqlLockOptions.DEFAULT_POOL_WAIT_TIMEOUT));
            b.timeouts(JdbcUris.timeouts(params));
            JdbcUris.credentials(uri).ifPresent(b::credentials);
            b.tls(JdbcUris.tls(params));
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException(e.getMessage() + " in " + UriParameters.redact(uri), "mysql", e);
        }
    }
}
