package io.distlock.jdbc.core;

import io.distlock.Credentials;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import io.distlock.spi.UriParameters;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What the SQL backends' URIs ({@code mysql://}, {@code postgresql://}) have in common: {@code
 * user[:password]@host[:port]/database}, checked so that nothing can be smuggled into the JDBC URL
 * through them, and the parameters of the pool and of TLS, with the same names on both.
 */
public final class JdbcUris {
    private JdbcUris() {}

    /**
     * {@code host:port/database} of {@code uri}, from checked parts only.
     *
     * @param example a URI to show in messages, such as {@code mysql://user@host:3306/db}
     * @param database the rule for the database name
     * @throws io.distlock.LockConfigurationException naming the rule a part breaks
     */
    public static String hostPortDatabase(
            URI uri, UriParameters params, int defaultPort, Pattern database, String example) {
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            String authority = uri.getRawAuthority() == null ? "" : uri.getRawAuthority();
            if (!authority.substring(authority.lastIndexOf('@') + 1).isEmpty()) {
                throw params.error("host[:port] is malformed: the port must be a number 1..65535 and the host a"
                        + " name or an IP address (" + example + ")");
            }
            throw params.error("a host is required (" + example + ")");
        }
        if (uri.getPort() == 0 || uri.getPort() > 65535) {
            throw params.error("port must be 1..65535 (was " + uri.getPort() + ")");
        }
        String path = uri.getPath();
        if (path == null || path.length() < 2 || path.indexOf('/', 1) >= 0) {
            throw params.error("a database is required as the path (" + example + ")");
        }
        String db = path.substring(1);
        if (!database.matcher(db).matches()) {
            throw params.error("database must match " + database.pattern() + " (was '" + db + "')");
        }
        int port = uri.getPort() < 0 ? defaultPort : uri.getPort();
        return host + ':' + port + '/' + db;
    }

    /**
     * The user and password of {@code uri}'s user info (URL-decoded), if any.
     *
     * @throws IllegalArgumentException if the user name is empty
     */
    public static Optional<Credentials> credentials(URI uri) {
        String info = uri.getRawUserInfo();
        if (info == null) {
            return Optional.empty();
        }
        int colon = info.indexOf(':');
        String user = UriParameters.decodeComponent(colon < 0 ? info : info.substring(0, colon));
        String password = colon < 0 ? "" : UriParameters.decodeComponent(info.substring(colon + 1));
        return Optional.of(Credentials.of(user, password));
    }

    /** {@code connectTimeout} and {@code requestTimeout}, defaulting to {@link TimeoutOptions#defaults()}. */
    public static TimeoutOptions timeouts(UriParameters params) {
        return new TimeoutOptions(
                params.duration("connectTimeout", TimeoutOptions.DEFAULT_CONNECT_TIMEOUT),
                params.duration("requestTimeout", TimeoutOptions.DEFAULT_REQUEST_TIMEOUT));
    }

    /** {@code poolWaitTimeout}, or {@code defaultValue}. */
    public static Duration poolWaitTimeout(UriParameters params, Duration defaultValue) {
        return params.duration("poolWaitTimeout", defaultValue);
    }

    /**
     * {@code tls=true} for the JVM's default trust, {@code trustCertificates} (PEM) or a {@code
     * trustStore} (with its {@code trustStorePassword}) for the CAs, {@code clientCertificate} with
     * {@code clientKey}; each backend's options reject what its driver cannot use, with the reason.
     *
     * @throws IllegalArgumentException for parameters that contradict each other
     */
    public static TlsOptions tls(UriParameters params) {
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
