package io.distlock.mysql.internal;

import io.distlock.Credentials;
import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import io.distlock.mysql.MySqlLockOptions;
import io.distlock.mysql.MySqlLockProvider;
import io.distlock.spi.LockProviderFactory;
import io.distlock.spi.UriParameters;
import java.net.URI;
import java.nio.file.Path;
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
        return "jdbc:mysql://" + host + ':' + port + '/' + db;
    }

    private static MySqlLockOptions options(URI uri, UriParameters params) {
        MySqlLockOptions.Builder b = MySqlLockOptions.builder();
        try {
            b.table(params.string("table", MySqlLockOptions.DEFAULT_TABLE));
            b.createSchema(params.bool("createSchema", false));
            b.poolSize(params.integer("poolSize", MySqlLockOptions.DEFAULT_POOL_SIZE));
            b.poolWaitTimeout(params.duration("poolWaitTimeout", MySqlLockOptions.DEFAULT_POOL_WAIT_TIMEOUT));
            b.timeouts(new TimeoutOptions(
                    params.duration("connectTimeout", TimeoutOptions.DEFAULT_CONNECT_TIMEOUT),
                    params.duration("requestTimeout", TimeoutOptions.DEFAULT_REQUEST_TIMEOUT)));
            String info = uri.getRawUserInfo();
            if (info != null) {
                int colon = info.indexOf(':');
                String user = UriParameters.decodeComponent(colon < 0 ? info : info.substring(0, colon));
                String password = colon < 0 ? "" : UriParameters.decodeComponent(info.substring(colon + 1));
                b.credentials(Credentials.of(user, password));
            }
            b.tls(tls(params));
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException(e.getMessage() + " in " + UriParameters.redact(uri), "mysql", e);
        }
    }

    /**
     * {@code tls=true} for the JVM's default trust, a {@code trustStore} (with its {@code
     * trustStorePassword}) for a key store of CAs; the PEM parameters are passed on so that the
     * options reject them with the reason.
     */
    private static TlsOptions tls(UriParameters params) {
        Boolean on = params.bool("tls", null);
        String trustStore = params.string("trustStore", null);
        String trustStorePassword = params.string("trustStorePassword", null);
        String trustCertificates = params.string("trustCertificates", null);
        String clientCertificate = params.string("clientCertificate", null);
        String clientKey = params.string("clientKey", null);
        if (trustStorePassword != null && trustStore == null) {
            throw new IllegalArgumentException("parameter 'trustStorePassword' needs 'trustStore'");
        }
        if ((clientCertificate == null) != (clientKey == null)) {
            throw new IllegalArgumentException("parameters 'clientCertificate' and 'clientKey' go together");
        }
        boolean trustOrCertificate = trustStore != null || trustCertificates != null || clientCertificate != null;
        if (Boolean.FALSE.equals(on) && trustOrCertificate) {
            throw new IllegalArgumentException("parameter 'tls' is false but a trust store or certificate is given");
        }
        if (!Boolean.TRUE.equals(on) && !trustOrCertificate) {
            return TlsOptions.disabled();
        }
        TlsOptions.Builder tls = TlsOptions.builder();
        if (trustStore != null) {
            tls.trustStore(Path.of(trustStore), trustStorePassword);
        }
        if (trustCertificates != null) {
            tls.trustCertificates(Path.of(trustCertificates));
        }
        if (clientCertificate != null) {
            tls.clientCertificate(Path.of(clientCertificate), Path.of(clientKey));
        }
        return tls.build();
    }
}
