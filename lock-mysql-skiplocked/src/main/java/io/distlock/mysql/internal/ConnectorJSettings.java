package io.distlock.mysql.internal;

import io.distlock.TlsOptions;
import io.distlock.mysql.MySqlLockOptions;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Internal: the MySQL Connector/J properties of the pool a provider opens itself, from its options.
 *
 * <ul>
 *   <li>Speed: {@code useLocalSessionState} (no round trip for {@code getAutoCommit} and friends),
 *       {@code cachePrepStmts} with {@code useServerPrepStmts} (each of the lock's few statement
 *       texts is parsed by the client and prepared by the server once per connection, then only the
 *       bound values are sent; the first use of a text on a connection costs one prepare round trip).
 *   <li>{@link io.distlock.TimeoutOptions#connectTimeout()} → {@code connectTimeout}. The request
 *       timeout is not Connector/J's {@code socketTimeout}: a lock connection blocks on row locks by
 *       design and runs the caller's own statements, so it bounds only the provider's own short
 *       statements (see lock-jdbc-core's {@code RowLockDriver}).
 *   <li>{@link TlsOptions}: on → {@code sslMode=VERIFY_IDENTITY} (the CA and the host name are
 *       checked) and the trust store as {@code trustCertificateKeyStore*}, or the JVM's default trust.
 *       Off → no TLS property: the JDBC URL decides (Connector/J's default {@code PREFERRED}).
 * </ul>
 */
public final class ConnectorJSettings {
    /** Properties that make the lock's statements cheap, identical for every pool the provider opens. */
    private static final Map<String, String> SPEED = speed();

    /** JDBC URL parameters that configure TLS, which {@link TlsOptions} must not contradict. */
    private static final List<String> TLS_URL_PARAMETERS =
            List.of("sslmode", "usessl", "requiressl", "verifyservercertificate", "trustcertificatekeystore");

    private ConnectorJSettings() {}

    private static Map<String, String> speed() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("useLocalSessionState", "true");
        m.put("cachePrepStmts", "true");
        m.put("useServerPrepStmts", "true");
        return m;
    }

    /**
     * The speed properties as JDBC URL parameters ({@code useLocalSessionState=true&...}), for tools
     * that time the lock's statements on connections of their own with the provider's settings.
     */
    public static String speedUrlParameters() {
        StringBuilder sb = new StringBuilder();
        SPEED.forEach((k, v) ->
                sb.append(sb.length() == 0 ? "" : "&").append(k).append('=').append(v));
        return sb.toString();
    }

    /** The Connector/J properties for {@code options}: speed and the connect timeout. */
    static Properties properties(MySqlLockOptions options) {
        Properties p = new Properties();
        SPEED.forEach(p::setProperty);
        p.setProperty(
                "connectTimeout",
                String.valueOf(options.timeouts().connectTimeout().toMillis()));
        return p;
    }

    /**
     * {@code jdbcUrl} with {@code options}' TLS settings as URL parameters. In the URL rather than in
     * the data-source properties because HikariCP masks {@code ...Password=} parameters of the URL
     * when it logs its configuration, but not those of the properties.
     *
     * @throws IllegalArgumentException if {@code jdbcUrl} configures TLS itself while {@code
     *     options.tls()} is on
     */
    static String jdbcUrl(String jdbcUrl, MySqlLockOptions options) {
        TlsOptions tls = options.tls();
        if (!tls.isEnabled()) {
            return jdbcUrl;
        }
        rejectTlsInUrl(jdbcUrl);
        StringBuilder url = new StringBuilder(jdbcUrl)
                .append(jdbcUrl.indexOf('?') < 0 ? '?' : '&')
                .append("sslMode=VERIFY_IDENTITY");
        tls.trustStore().ifPresent(store -> {
            url.append("&trustCertificateKeyStoreUrl=")
                    .append(encode(store.toUri().toString()));
            url.append("&trustCertificateKeyStoreType=").append(keyStoreType(store));
            tls.trustStorePassword()
                    .ifPresent(pw ->
                            url.append("&trustCertificateKeyStorePassword=").append(encode(pw)));
        });
        return url.toString();
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** PKCS12 for {@code .p12} and {@code .pfx} files, JKS otherwise (the JDK's JKS type also reads PKCS#12). */
    private static String keyStoreType(Path store) {
        String lower = store.getFileName().toString().toLowerCase(Locale.ROOT);
        return lower.endsWith(".p12") || lower.endsWith(".pfx") ? "PKCS12" : "JKS";
    }

    private static void rejectTlsInUrl(String jdbcUrl) {
        int q = jdbcUrl.indexOf('?');
        if (q < 0) {
            return;
        }
        for (String pair : jdbcUrl.substring(q + 1).split("&")) {
            String key = pair.split("=", 2)[0].toLowerCase(Locale.ROOT);
            for (String tlsKey : TLS_URL_PARAMETERS) {
                if (key.startsWith(tlsKey)) {
                    throw new IllegalArgumentException("jdbcUrl sets TLS parameter '" + pair.split("=", 2)[0]
                            + "' while options.tls is on: configure TLS in one place (MySqlLockOptions.tls)");
                }
            }
        }
    }
}
