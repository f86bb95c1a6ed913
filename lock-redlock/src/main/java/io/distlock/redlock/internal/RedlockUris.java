package io.distlock.redlock.internal;

import io.distlock.Credentials;
import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.redis.core.ConnectionChecks;
import io.distlock.redis.core.ConnectionUris;
import io.distlock.redis.core.RedisConnectionOptions;
import io.distlock.redlock.RedlockLockOptions;
import io.distlock.spi.UriParameters;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses {@code redlock://[[user]:password@]host1:port,host2:port,host3:port[?parameters]} and
 * {@code redlocks://} (TLS). Parameters: the common {@code leaseTime}, {@code autoRenew}, {@code
 * maxHoldTime}, {@code maxRenewals}; the connection parameters {@code keyPrefix}, {@code poolSize},
 * {@code connectTimeout}, {@code requestTimeout}, {@code database}, {@code tls}, {@code
 * trustCertificates}, {@code trustStore}, {@code trustStorePassword} (see {@link ConnectionUris}),
 * applied to every node; {@code nodeTimeout}, {@code fencing}, {@code assumePersistence}, {@code
 * allowEvenNodeCount}, {@code maxRetryDelay}; and {@code nodeN.username}, {@code nodeN.password}
 * (N = the node's 1-based position in the list): node N's own credentials instead of those in the
 * user info (a password without a user name authenticates as the {@code default} user). A node
 * without a port gets 6379. Messages never contain a password.
 */
public final class RedlockUris {
    private static final String BACKEND = "redlock";

    private RedlockUris() {}

    /** A parsed URI. */
    public record Parsed(List<NodeAddress> nodes, RedlockLockOptions options, LockOptions lockOptions) {}

    /** @throws LockConfigurationException naming the part of the (redacted) URI that is wrong */
    public static Parsed parse(URI uri) {
        UriParameters params = UriParameters.of(uri, BACKEND);
        String redacted = UriParameters.redact(uri);
        String authority = uri.getRawAuthority();
        String userInfo = null;
        if (authority != null) {
            int at = authority.lastIndexOf('@');
            if (at >= 0) {
                userInfo = authority.substring(0, at);
                authority = authority.substring(at + 1);
            }
        }
        if (authority == null || authority.isEmpty()) {
            throw params.error("redlock URI needs nodes, as redlock://host1:port,host2:port,host3:port");
        }
        String path = uri.getRawPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            throw params.error("redlock URI takes no path (was '" + path + "')");
        }
        try {
            List<String> hostPorts = ConnectionChecks.hostPorts(authority, 6379, "node");
            LockOptions lockOptions = params.lockOptions(LockOptions.defaults());
            RedisConnectionOptions.Builder connection =
                    RedlockLockOptions.defaults().connection().mutate();
            Credentials shared = ConnectionUris.credentials(userInfo);
            if (shared != null) {
                connection.credentials(shared);
            }
            RedlockLockOptions.Builder b = RedlockLockOptions.builder()
                    .connection(ConnectionUris.connection(
                            params,
                            connection.build(),
                            "redlocks".equalsIgnoreCase(uri.getScheme()),
                            "use redlocks:// or tls=true"));
            Duration nodeTimeout = params.duration("nodeTimeout", null);
            if (nodeTimeout != null) {
                b.nodeTimeout(nodeTimeout);
            }
            Boolean fencing = params.bool("fencing", null);
            if (fencing != null) {
                b.fencing(fencing);
            }
            Boolean persistence = params.bool("assumePersistence", null);
            if (persistence != null) {
                b.assumePersistence(persistence);
            }
            Boolean even = params.bool("allowEvenNodeCount", null);
            if (even != null) {
                b.allowEvenNodeCount(even);
            }
            Duration retry = params.duration("maxRetryDelay", null);
            if (retry != null) {
                b.maxRetryDelay(retry);
            }
            List<NodeAddress> nodes = new ArrayList<>();
            for (int i = 0; i < hostPorts.size(); i++) {
                nodes.add(node(params, i + 1, hostPorts.get(i)));
            }
            params.rejectUnknown();
            return new Parsed(nodes, b.build(), lockOptions);
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException(e.getMessage() + " in " + redacted, BACKEND, e);
        }
    }

    /** Node {@code position} with its own credentials if the parameters give them. */
    private static NodeAddress node(UriParameters params, int position, String hostPort) {
        String key = "node" + position;
        String user = params.string(key + ".username", null);
        String password = params.string(key + ".password", null);
        if (password == null) {
            if (user != null) {
                throw new IllegalArgumentException(
                        key + ".username needs " + key + ".password (a node's own credentials come as a pair)");
            }
            return NodeAddress.of(ConnectionChecks.parseHostAndPort(hostPort));
        }
        Credentials own =
                user == null || user.isEmpty() ? Credentials.password(password) : Credentials.of(user, password);
        return NodeAddress.withCredentials(ConnectionChecks.parseHostAndPort(hostPort), own);
    }
}
