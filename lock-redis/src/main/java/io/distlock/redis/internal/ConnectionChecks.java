package io.distlock.redis.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import javax.net.ssl.SSLSocketFactory;
import redis.clients.jedis.HostAndPort;

/**
 * Checks of connection settings that lock-redis ({@code RedisLockOptions}, {@link Topology}) and
 * lock-redlock ({@code RedlockOptions}, {@code RedlockLockProvider}) apply by the same rule. The
 * messages are those the two modules' options document and their tests expect; change them in
 * both modules' tests together. Internal: not an API.
 */
public final class ConnectionChecks {
    private ConnectionChecks() {}

    /**
     * {@code host} and {@code port} as a Jedis address.
     *
     * @throws NullPointerException if {@code host} is null
     * @throws IllegalArgumentException if {@code host} is blank or {@code port} is not between 1 and
     *     65535
     */
    public static HostAndPort hostAndPort(String host, int port) {
        Objects.requireNonNull(host, "host must not be null");
        if (host.isBlank()) {
            throw new IllegalArgumentException("host must not be blank");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be between 1 and 65535 (was " + port + ")");
        }
        return new HostAndPort(host, port);
    }

    /**
     * {@code tlsCaFile}, if null or readable.
     *
     * @throws IllegalArgumentException if it is set but not readable
     */
    public static Path readableTlsCaFile(Path tlsCaFile) {
        if (tlsCaFile != null && !Files.isReadable(tlsCaFile)) {
            throw new IllegalArgumentException("tlsCaFile must be a readable file (was '" + tlsCaFile + "')");
        }
        return tlsCaFile;
    }

    /**
     * Checks that TLS material is given only with TLS on, and at most one kind of it.
     *
     * @param howToEnable what the message suggests to switch TLS on, e.g. {@code "use rediss:// or
     *     tls(true)"}
     * @throws IllegalArgumentException if {@code tlsCaFile} or {@code sslSocketFactory} is set with
     *     {@code tls} off, or both are set
     */
    public static void checkTlsMaterial(
            boolean tls, Path tlsCaFile, SSLSocketFactory sslSocketFactory, String howToEnable) {
        if (!tls && (tlsCaFile != null || sslSocketFactory != null)) {
            throw new IllegalArgumentException("tlsCaFile and sslSocketFactory require tls=true (" + howToEnable + ")");
        }
        if (tlsCaFile != null && sslSocketFactory != null) {
            throw new IllegalArgumentException(
                    "set either tlsCaFile or sslSocketFactory, not both (the factory decides what it trusts)");
        }
    }

    /**
     * {@code database}, if not negative.
     *
     * @throws IllegalArgumentException if negative
     */
    public static int database(int database) {
        if (database < 0) {
            throw new IllegalArgumentException("database must not be negative (was " + database + ")");
        }
        return database;
    }

    /**
     * Index of the first character of {@code keyPrefix} outside {@code [A-Za-z0-9_.:-]}, or -1 if
     * there is none. Those characters leave the hash tag of every key alone (no braces) and keep
     * keys readable by tooling (no spaces or control characters).
     */
    public static int invalidKeyPrefixCharAt(String keyPrefix) {
        for (int i = 0; i < keyPrefix.length(); i++) {
            char c = keyPrefix.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '_'
                    || c == '-'
                    || c == '.'
                    || c == ':';
            if (!ok) {
                return i;
            }
        }
        return -1;
    }
}
