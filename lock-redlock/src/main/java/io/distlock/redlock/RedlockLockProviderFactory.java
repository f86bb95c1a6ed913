package io.distlock.redlock;

import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.spi.LockProviderFactory;
import io.distlock.spi.UriParameters;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Opens {@code redlock://[[user]:password@]host1:port,host2:port,host3:port[?parameters]} for {@link
 * io.distlock.LockProviders#open(URI)}. Parameters: {@code leaseTime}, {@code autoRenew}, {@code
 * maxHoldTime} (common to all backends), {@code nodeTimeout}, {@code fencing}, {@code
 * assumePersistence}, {@code allowEvenNodeCount}, {@code keyPrefix}, {@code poolSize}, {@code
 * connectTimeout}, {@code socketTimeout}, {@code maxRetryDelay}, {@code database}, {@code tls},
 * {@code tlsCaFile}; {@code redlocks://} is {@code redlock://} with {@code tls=true}. The credentials
 * in the user info and the TLS settings apply to every node; {@code nodeN.username} and {@code
 * nodeN.password} (N = the node's 1-based position in the list) give node N credentials of its own
 * instead (a password without a user name authenticates as the {@code default} user). Messages never
 * contain a password.
 */
public final class RedlockLockProviderFactory implements LockProviderFactory {

    @Override
    public Set<String> schemes() {
        return Set.of("redlock", "redlocks");
    }

    @Override
    public LockProvider open(URI uri) {
        return open(uri, UnaryOperator.identity());
    }

    @Override
    public LockProvider open(URI uri, UnaryOperator<LockOptions> customizer) {
        UriParameters params = UriParameters.of(uri, "redlock");
        String redacted = UriParameters.redact(uri);
        String authority = uri.getRawAuthority();
        if (authority == null || authority.isEmpty()) {
            throw new LockConfigurationException(
                    "redlock URI needs nodes, as redlock://host1:port,host2:port,host3:port (was " + redacted + ")",
                    "redlock");
        }
        RedlockOptions.Builder b = RedlockOptions.builder();
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = authority.substring(0, at);
            authority = authority.substring(at + 1);
            int colon = userInfo.indexOf(':');
            String user = UriParameters.decodeComponent(colon < 0 ? userInfo : userInfo.substring(0, colon));
            if (colon < 0) {
                if (!user.isEmpty()) {
                    b.password(user); // redis://password@host, as Redis URIs allow
                }
            } else {
                if (!user.isEmpty()) {
                    b.username(user);
                }
                String password = UriParameters.decodeComponent(userInfo.substring(colon + 1));
                if (!password.isEmpty()) {
                    b.password(password); // redlock://user:@host: no password, as for redis://
                }
            }
        }
        if (authority.isEmpty()) {
            throw params.error("redlock URI needs nodes, as redlock://host1:port,host2:port,host3:port");
        }
        String path = uri.getRawPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            throw params.error("redlock URI takes no path (was '" + path + "')");
        }
        List<String> nodes = new ArrayList<>();
        for (String node : authority.split(",", -1)) {
            if (node.isEmpty()) {
                throw params.error("empty node in the node list");
            }
            if (!node.contains(":") || node.endsWith("]")) {
                node = node + ":6379";
            }
            nodes.add(node);
        }
        try {
            b.lockOptions(
                    LockProviderFactory.customize(params.lockOptions(b.build().lockOptions()), customizer));
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
            String prefix = params.string("keyPrefix", null);
            if (prefix != null) {
                b.keyPrefix(prefix);
            }
            Integer pool = params.integer("poolSize", null);
            if (pool != null) {
                b.poolSize(pool);
            }
            Duration connect = params.duration("connectTimeout", null);
            if (connect != null) {
                b.connectTimeout(connect);
            }
            Duration socket = params.duration("socketTimeout", null);
            if (socket != null) {
                b.socketTimeout(socket);
            }
            Duration retry = params.duration("maxRetryDelay", null);
            if (retry != null) {
                b.maxRetryDelay(retry);
            }
            Integer db = params.integer("database", null);
            if (db != null) {
                b.database(db);
            }
            Boolean tls = params.bool("tls", null);
            b.tls(tls != null ? tls : "redlocks".equalsIgnoreCase(uri.getScheme()));
            String caFile = params.string("tlsCaFile", null);
            if (caFile != null) {
                b.tlsCaFile(java.nio.file.Path.of(caFile));
            }
            RedlockLockProvider.Builder provider = RedlockLockProvider.builder();
            for (int i = 0; i < nodes.size(); i++) {
                String key = "node" + (i + 1);
                String user = params.string(key + ".username", null);
                String password = params.string(key + ".password", null);
                if (password == null) {
                    if (user != null) {
                        throw new IllegalArgumentException(
                                key + ".username needs " + key + ".password (a node's own credentials come as a pair)");
                    }
                    provider.nodes(nodes.get(i));
                } else {
                    provider.node(nodes.get(i), user == null || user.isEmpty() ? null : user, password);
                }
            }
            params.rejectUnknown();
            return provider.options(b.build()).build();
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException(e.getMessage() + " in " + redacted, "redlock", e);
        }
    }
}
