package io.distlock.redis.core;

import io.distlock.Credentials;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import redis.clients.jedis.HostAndPort;

/**
 * Checks of connection settings that lock-redis and lock-redlock apply by the same rule, with the
 * messages their options document: addresses, database numbers and key prefixes.
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
     * Parses {@code host:port} or {@code [ipv6]:port}.
     *
     * @throws IllegalArgumentException naming the rule the text breaks
     */
    public static HostAndPort parseHostAndPort(String hostPort) {
        Objects.requireNonNull(hostPort, "host:port must not be null");
        String s = hostPort.trim();
        String host;
        String port;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0 || close + 1 >= s.length() || s.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("expected [ipv6]:port (was '" + hostPort + "')");
            }
            host = s.substring(1, close);
            port = s.substring(close + 2);
        } else {
            int colon = s.lastIndexOf(':');
            if (colon <= 0 || s.indexOf(':') != colon) {
                throw new IllegalArgumentException("expected host:port (was '" + hostPort + "')");
            }
            host = s.substring(0, colon);
            port = s.substring(colon + 1);
        }
        try {
            return hostAndPort(host, Integer.parseInt(port));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port must be a number (was '" + port + "' in '" + hostPort + "')");
        }
    }

    /**
     * The comma-separated {@code host[:port]} list of a URI's authority, each with {@code
     * defaultPort} added where it has none ({@code [ipv6]} is given a port too).
     *
     * @param what what an element is called in a message ("host", "node")
     * @throws IllegalArgumentException if an element is empty
     */
    public static List<String> hostPorts(String authority, int defaultPort, String what) {
        List<String> hosts = new ArrayList<>();
        for (String h : authority.split(",", -1)) {
            if (h.isBlank()) {
                throw new IllegalArgumentException("empty " + what + " in the " + what + " list");
            }
            boolean hasPort = h.startsWith("[") ? h.contains("]:") : h.contains(":");
            hosts.add(hasPort ? h : h + ":" + defaultPort);
        }
        return hosts;
    }

    /**
     * {@code credentials}, if Redis can use them: a user name without whitespace (an ACL user name
     * cannot hold any) and a password that is not empty.
     *
     * @throws NullPointerException if {@code credentials} is null
     * @throws IllegalArgumentException naming the rule they break (never the password)
     */
    public static Credentials credentials(Credentials credentials) {
        Objects.requireNonNull(credentials, "credentials must not be null");
        if (credentials
                .user()
                .filter(u -> u.chars().anyMatch(Character::isWhitespace))
                .isPresent()) {
            throw new IllegalArgumentException("credentials: the user name must not contain whitespace");
        }
        if (credentials.password().isEmpty()) {
            throw new IllegalArgumentException(
                    "credentials: the password must not be empty (leave credentials unset for none)");
        }
        return credentials;
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
     * {@code keyPrefix}, if it is 1 to {@code maxLength} characters from {@code [A-Za-z0-9_.:-]}
     * and neither starts nor ends with {@code :}. Those characters leave the hash tag of every key
     * alone (no braces) and keep keys readable by tooling (no spaces or control characters).
     *
     * @throws IllegalArgumentException naming the rule it breaks
     */
    public static String keyPrefix(String keyPrefix, int maxLength) {
        Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
        if (keyPrefix.isEmpty() || keyPrefix.length() > maxLength) {
            throw new IllegalArgumentException(
                    "keyPrefix must be 1 to " + maxLength + " characters long (was " + keyPrefix.length() + ")");
        }
        int bad = invalidKeyPrefixCharAt(keyPrefix);
        if (bad >= 0) {
            throw new IllegalArgumentException(String.format(
                    "keyPrefix may contain only A-Z, a-z, 0-9, '_', '-', '.' and ':' (found U+%04X at index %d)",
                    (int) keyPrefix.charAt(bad), bad));
        }
        if (keyPrefix.startsWith(":") || keyPrefix.endsWith(":")) {
            throw new IllegalArgumentException("keyPrefix must not start or end with ':' (was '" + keyPrefix + "')");
        }
        return keyPrefix;
    }

    /**
     * Index of the first character of {@code keyPrefix} outside {@code [A-Za-z0-9_.:-]}, or -1 if
     * there is none.
     */
    static int invalidKeyPrefixCharAt(String keyPrefix) {
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
