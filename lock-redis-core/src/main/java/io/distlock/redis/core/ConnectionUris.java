package io.distlock.redis.core;

import io.distlock.Credentials;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import io.distlock.spi.UriParameters;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The parts of {@code redis://} and {@code redlock://} URIs that mean the same on both: the
 * credentials in the user info and the connection parameters {@code keyPrefix}, {@code poolSize},
 * {@code connectTimeout}, {@code requestTimeout}, {@code database}, {@code tls}, {@code
 * trustCertificates} (a PEM file), {@code trustStore} and {@code trustStorePassword}, {@code
 * clientCertificate} and {@code clientKey} (rejected: the Redis backends take a client certificate
 * only through an {@code SSLContext}). Errors are {@link IllegalArgumentException}s whose messages
 * never contain a password; the callers turn them into configuration errors naming the redacted
 * URI.
 */
public final class ConnectionUris {
    private ConnectionUris() {}

    /**
     * The credentials of a URI's raw user info ({@code URI.getRawAuthority()} up to the last
     * {@code @}), percent-decoded: {@code user:password}, {@code :password} (the {@code default}
     * user), or a lone {@code password} as {@code redis-cli} reads it. An empty password means none
     * ({@code redis://user:@host}), as for a server without a password.
     *
     * @return the credentials, or null if there are none
     */
    public static Credentials credentials(String rawUserInfo) {
        if (rawUserInfo == null || rawUserInfo.isEmpty()) {
            return null;
        }
        int colon = rawUserInfo.indexOf(':');
        if (colon < 0) {
            return Credentials.password(UriParameters.decodeComponent(rawUserInfo));
        }
        String user = UriParameters.decodeComponent(rawUserInfo.substring(0, colon));
        String password = UriParameters.decodeComponent(rawUserInfo.substring(colon + 1));
        if (password.isEmpty()) {
            return null;
        }
        return user.isEmpty() ? Credentials.password(password) : Credentials.of(user, password);
    }

    /**
     * {@code base} with the connection parameters of {@code params} applied, and its TLS replaced: on if {@code
     * tlsByScheme} (a {@code rediss://} or {@code redlocks://} scheme) unless {@code tls=false}.
     *
     * @param tlsHint how to switch TLS on, for the message when trust is given without it (e.g.
     *     {@code "use rediss:// or tls=true"})
     * @throws IllegalArgumentException naming the parameter and the rule it breaks
     */
    public static RedisConnectionOptions connection(
            UriParameters params, RedisConnectionOptions base, boolean tlsByScheme, String tlsHint) {
        RedisConnectionOptions.Builder b = base.mutate();
        String prefix = params.string("keyPrefix", null);
        if (prefix != null) {
            b.keyPrefix(prefix);
        }
        Integer pool = params.integer("poolSize", null);
        if (pool != null) {
            b.poolSize(pool);
        }
        TimeoutOptions timeouts = base.timeouts();
        Duration connect = params.duration("connectTimeout", null);
        if (connect != null) {
            timeouts = timeouts.withConnectTimeout(connect);
        }
        Duration request = params.duration("requestTimeout", null);
        if (request != null) {
            timeouts = timeouts.withRequestTimeout(request);
        }
        b.timeouts(timeouts);
        Integer db = params.integer("database", null);
        if (db != null) {
            b.database(db);
        }
        b.tls(tls(params, tlsByScheme, tlsHint));
        return b.build();
    }

    private static TlsOptions tls(UriParameters params, boolean defaultOn, String tlsHint) {
        Boolean on = params.bool("tls", null);
        boolean enabled = on != null ? on : defaultOn;
        String certificates = params.string("trustCertificates", null);
        String store = params.string("trustStore", null);
        String storePassword = params.string("trustStorePassword", null);
        String clientCertificate = params.string("clientCertificate", null);
        String clientKey = params.string("clientKey", null);
        if (clientCertificate != null || clientKey != null) {
            throw new IllegalArgumentException("clientCertificate and clientKey are not supported by the Redis"
                    + " backends; present a client certificate through TlsOptions.sslContext");
        }
        if (storePassword != null && store == null) {
            throw new IllegalArgumentException("trustStorePassword needs trustStore");
        }
        if (!enabled) {
            if (certificates != null || store != null) {
                throw new IllegalArgumentException(
                        (certificates != null ? "trustCertificates" : "trustStore") + " needs TLS (" + tlsHint + ")");
            }
            return TlsOptions.disabled();
        }
        TlsOptions.Builder tls = TlsOptions.builder();
        if (certificates != null) {
            tls.trustCertificates(Path.of(certificates));
        }
        if (store != null) {
            tls.trustStore(Path.of(store), storePassword);
        }
        return tls.build();
    }
}
