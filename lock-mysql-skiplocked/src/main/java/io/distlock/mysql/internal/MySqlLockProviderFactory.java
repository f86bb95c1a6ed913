package io.distlock.mysql.internal;

import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.mysql.MySqlLockOptions;
import io.distlock.mysql.MySqlLockProvider;
import io.distlock.spi.LockProviderFactory;
import io.distlock.spi.UriParameters;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Internal (registered through {@link java.util.ServiceLoader}): opens {@code
 * mysql://user[:password]@host[:3306]/db?table=…&leaseTime=…&createSchema=…&poolSize=…&connectionTimeout=…&sslMode=…&trustStore=…&trustStoreType=…&trustStorePassword=…}
 * ({@code createTable} is accepted for {@code createSchema}). The database name, port and
 * {@code sslMode} are checked (so that nothing can be smuggled into the JDBC URL); a {@code
 * trustStore} (PKCS#12 or JKS file with the CA) implies {@code sslMode=VERIFY_CA} unless given.
 */
public final class MySqlLockProviderFactory implements LockProviderFactory {
    private static final Pattern DATABASE = Pattern.compile("[A-Za-z0-9_$]{1,64}");
    private static final List<String> SSL_MODES =
            List.of("DISABLED", "PREFERRED", "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY");

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
            String authority = uri.getRawAuthority() == null ? "" : uri.getRawAuthority();
            if (!authority.substring(authority.lastIndexOf('@') + 1).isEmpty()) {
                throw params.error("host[:port] is malformed: the port must be a number 1..65535 and the host a"
                        + " name or an IP address (mysql://user@host:3306/db)");
            }
            throw params.error("a host is required (mysql://user@host:3306/db)");
        }
        if (uri.getPort() == 0 || uri.getPort() > 65535) {
            throw params.error("port must be 1..65535 (was " + uri.getPort() + ")");
        }
        String path = uri.getPath();
        if (path == null || path.length() < 2 || path.indexOf('/', 1) >= 0) {
            throw params.error("a database is required as the path (mysql://user@host:3306/db)");
        }
        String db = path.substring(1);
        if (!DATABASE.matcher(db).matches()) {
            throw params.error("database must match [A-Za-z0-9_$]{1,64} (was '" + db + "')");
        }
        int port = uri.getPort() < 0 ? 3306 : uri.getPort();
        String user = null;
        String password = null;
        String info = uri.getRawUserInfo();
        if (info != null) {
            int colon = info.indexOf(':');
            user = UriParameters.decodeComponent(colon < 0 ? info : info.substring(0, colon));
            password = colon < 0 ? null : UriParameters.decodeComponent(info.substring(colon + 1));
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
        if (sslMode != null && !SSL_MODES.contains(sslMode)) {
            throw params.error("parameter 'sslMode' must be one of " + SSL_MODES + " (was '" + sslMode + "')");
        }
        String trustStore = params.string("trustStore", null);
        String trustStoreType = params.string("trustStoreType", null);
        String trustStorePassword = params.string("trustStorePassword", null);
        params.rejectUnknown();
        StringBuilder jdbcUrl = new StringBuilder("jdbc:mysql://")
                .append(host)
                .append(':')
                .append(port)
                .append('/')
                .append(db);
        String sep = "?";
        if (trustStore != null) {
            if (!Files.isReadable(Path.of(trustStore))) {
                throw params.error(
                        "parameter 'trustStore' must be a readable key store file (was '" + trustStore + "')");
            }
            if (trustStoreType == null) {
                String lower = trustStore.toLowerCase(Locale.ROOT);
                trustStoreType = lower.endsWith(".p12") || lower.endsWith(".pfx") ? "PKCS12" : "JKS";
            } else if (!trustStoreType.equals("PKCS12") && !trustStoreType.equals("JKS")) {
                throw params.error("parameter 'trustStoreType' must be PKCS12 or JKS (was '" + trustStoreType + "')");
            }
            if (sslMode == null) {
                sslMode = "VERIFY_CA";
            }
            jdbcUrl.append(sep)
                    .append("trustCertificateKeyStoreUrl=")
                    .append(encode(Path.of(trustStore).toUri().toString()))
                    .append("&trustCertificateKeyStoreType=")
                    .append(trustStoreType);
            sep = "&";
            if (trustStorePassword != null) {
                jdbcUrl.append("&trustCertificateKeyStorePassword=").append(encode(trustStorePassword));
            }
        } else if (trustStoreType != null || trustStorePassword != null) {
            throw params.error("parameters 'trustStoreType' and 'trustStorePassword' need 'trustStore'");
        }
        if (sslMode != null) {
            jdbcUrl.append(sep).append("sslMode=").append(sslMode);
        }
        return MySqlLockProvider.builder()
                .jdbcUrl(jdbcUrl.toString())
                .user(user)
                .password(password)
                .options(b.build())
                .build();
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
