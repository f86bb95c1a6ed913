package io.distlock.mysql.internal;

import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.mysql.MySqlLockOptions;
import io.distlock.mysql.MySqlLockProvider;
import io.distlock.spi.LockProviderFactory;
import io.distlock.spi.UriParameters;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Internal (registered through {@link java.util.ServiceLoader}): opens {@code
 * mysql://user[:password]@host[:3306]/db?table=…&leaseTime=…&createSchema=…&poolSize=…&connectionTimeout=…&sslMode=…}
 * ({@code createTable} is accepted for {@code createSchema}).
 */
public final class MySqlLockProviderFactory implements LockProviderFactory {

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
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw params.error("a host is required (mysql://user@host:3306/db)");
        }
        String path = uri.getPath();
        if (path == null || path.length() < 2 || path.indexOf('/', 1) >= 0) {
            throw params.error("a database is required as the path (mysql://user@host:3306/db)");
        }
        String db = path.substring(1);
        int port = uri.getPort() < 0 ? 3306 : uri.getPort();
        String user = null;
        String password = null;
        String info = uri.getRawUserInfo();
        if (info != null) {
            int colon = info.indexOf(':');
            user = decode(colon < 0 ? info : info.substring(0, colon));
            password = colon < 0 ? null : decode(info.substring(colon + 1));
        }
        LockOptions lockOptions = LockProviderFactory.customize(params.lockOptions(LockOptions.defaults()), customizer);
        MySqlLockOptions.Builder b = MySqlLockOptions.builder().lockOptions(lockOptions);
        try {
            b.table(params.string("table", MySqlLockOptions.DEFAULT_TABLE));
            // createTable: accepted as another name for createSchema
            boolean createTable = params.bool("createTable", false);
            b.createSchema(params.bool("createSchema", createTable));
            b.poolSize(params.integer("poolSize", MySqlLockOptions.DEFAULT_POOL_SIZE));
            b.connectionTimeout(params.duration("connectionTimeout", MySqlLockOptions.DEFAULT_CONNECTION_TIMEOUT));
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException(e.getMessage() + " in " + UriParameters.redact(uri), "mysql", e);
        }
        String sslMode = params.string("sslMode", null);
        params.rejectUnknown();
        String jdbcUrl = "jdbc:mysql://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port + "/" + db
                + (sslMode == null ? "" : "?sslMode=" + sslMode);
        return MySqlLockProvider.builder()
                .jdbcUrl(jdbcUrl)
                .user(user)
                .password(password)
                .options(b.build())
                .build();
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
