package io.distlock.redis.core;

import java.net.SocketTimeoutException;
import java.security.cert.CertificateException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * How lock-redis and lock-redlock read a failed request: a configuration problem that no retry can
 * fix (wrong credentials, a missing ACL permission, a server certificate the client does not
 * trust), or a pooled connection that died while idle and is worth one more try on a new
 * connection.
 */
public final class RedisErrors {

    private RedisErrors() {}

    /**
     * The configuration problem behind {@code failure}, if it is one, as the server or the TLS
     * handshake stated it (never containing a password: Redis does not echo it):
     *
     * <ul>
     *   <li>wrong credentials: {@code WRONGPASS}, {@code NOAUTH} (a password is required but none
     *       was given), {@code ERR invalid password}, or a password given to a server that has
     *       none;
     *   <li>a missing ACL permission: {@code NOPERM}, also for a command or key inside a script;
     *   <li>TLS trust: the handshake failed on the server's certificate (an unknown CA, or a host
     *       name the certificate does not name).
     * </ul>
     *
     * Looks through the causes and suppressed exceptions (a pool wraps the error of the connection it
     * could not open; Jedis attaches each address's connect error as suppressed).
     */
    public static Optional<String> configurationProblem(Throwable failure) {
        boolean handshake = false;
        boolean certificate = false;
        String tlsMessage = null;
        for (Throwable t : causes(failure)) {
            if (t instanceof JedisAccessControlException) {
                return Optional.of(String.valueOf(t.getMessage()));
            }
            if (t instanceof JedisDataException && isRefusal(t.getMessage())) {
                return Optional.of(t.getMessage());
            }
            if (t instanceof SSLPeerUnverifiedException) {
                return Optional.of("TLS: " + t.getMessage());
            }
            if (t instanceof SSLHandshakeException) {
                handshake = true;
                tlsMessage = t.getMessage();
            }
            if (t instanceof CertificateException) {
                certificate = true;
            }
        }
        if (handshake && certificate) {
            return Optional.of("TLS: the server's certificate is not trusted: " + tlsMessage);
        }
        return Optional.empty();
    }

    /**
     * {@code failure}, its causes and the exceptions suppressed by any of them (Jedis attaches the
     * error of each address it tried to connect to as suppressed), each once.
     */
    private static List<Throwable> causes(Throwable failure) {
        List<Throwable> all = new ArrayList<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> todo = new ArrayDeque<>();
        todo.add(failure);
        while (!todo.isEmpty() && all.size() < 32) {
            Throwable t = todo.poll();
            if (t == null || !seen.add(t)) {
                continue;
            }
            all.add(t);
            if (t.getCause() != null) {
                todo.add(t.getCause());
            }
            todo.addAll(Arrays.asList(t.getSuppressed()));
        }
        return all;
    }

    private static boolean isRefusal(String m) {
        return m != null
                && (m.startsWith("WRONGPASS")
                        || m.startsWith("NOAUTH")
                        || m.startsWith("NOPERM")
                        || m.startsWith("ERR invalid password")
                        || m.contains("called without any password configured")
                        || m.contains("user executing the script can't"));
    }

    /**
     * Whether {@code failure} is a connection that broke without a timeout in its causes (closed by a
     * server restart or a proxy while idle in a pool): the request may be sent again on a new
     * connection.
     * Every script distlock sends is idempotent for its owner value, so a retry after a lost reply
     * does no harm. A timeout is not retried (the server may be slow, and the caller's time is
     * spent), nor is a configuration problem.
     */
    public static boolean isStaleConnection(Throwable failure) {
        if (!(failure instanceof JedisConnectionException)) {
            return false;
        }
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable c = failure; c != null && seen.add(c); c = c.getCause()) {
            if (c instanceof SocketTimeoutException) {
                return false;
            }
        }
        return configurationProblem(failure).isEmpty();
    }
}
