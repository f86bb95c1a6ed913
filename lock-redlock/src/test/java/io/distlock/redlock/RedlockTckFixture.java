package io.distlock.redlock;

import io.distlock.Credentials;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.redis.core.RedisKeys;
import io.distlock.tck.TckFixture;
import io.distlock.testing.faults.SlowReplies;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.Jedis;

/**
 * TCK fixture on N real, independent redis-server processes that require a password ({@code
 * requirepass}): every client authenticates with {@link #PASSWORD}; {@link
 * #newClientWithWrongCredentials} presents another one. Our providers' connections are recognised by
 * their client name ({@code distlock}), so admin connections are not counted.
 */
final class RedlockTckFixture implements TckFixture {
    private static final RedisKeys KEYS = new RedisKeys(RedlockLockOptions.DEFAULT_KEY_PREFIX);
    /** The password of every node. */
    static final String PASSWORD = "tck-Redlock-pw-3c9d";

    /**
     * Per-node timeout for TCK clients: above the 50 ms default because every TCK client starts
     * with cold connections (connect, CLIENT SETNAME, first EVALSHA/EVAL) on a shared 2-core test
     * machine. Still well below the TCK's 600 ms short lease.
     */
    static final Duration NODE_TIMEOUT = Duration.ofMillis(200);

    private final RedisServers nodes;
    private final boolean fencing;

    RedlockTckFixture(int n) {
        this(n, true);
    }

    RedlockTckFixture(int n, boolean fencing) {
        this.nodes = RedisServers.independentMasters(n, b -> b.password(PASSWORD));
        this.fencing = fencing;
    }

    RedisServers nodes() {
        return nodes;
    }

    List<String> addresses() {
        return List.of(nodes.addresses().split(","));
    }

    /** A provider with full Redlock options on these nodes. */
    RedlockLockProvider open(RedlockLockOptions options, LockOptions lockOptions) {
        return RedlockLockProvider.builder()
                .nodes(addresses())
                .options(options)
                .lockOptions(lockOptions)
                .build();
    }

    private RedlockLockOptions options(Credentials credentials) {
        return RedlockLockOptions.builder()
                .credentials(credentials)
                .nodeTimeout(NODE_TIMEOUT)
                .fencing(fencing)
                .poolSize(4)
                .build();
    }

    /** An admin connection to {@code node}. */
    private static Jedis admin(RedisServer node) {
        Jedis j = new Jedis(node.host(), node.port());
        j.auth(PASSWORD);
        return j;
    }

    @Override
    public String backend() {
        return "redlock-" + nodes.size() + (fencing ? "" : "-nofencing");
    }

    @Override
    public LockProvider newClient(LockOptions options) {
        return open(options(Credentials.password(PASSWORD)), options);
    }

    /** A client that authenticates with a wrong password on every node. */
    @Override
    public LockProvider newClientWithWrongCredentials(LockOptions options) {
        return open(options(Credentials.password("wrong-" + PASSWORD)), options);
    }

    /** A client that reaches every node through its own proxy whose replies arrive {@code delay} late. */
    @Override
    public LockProvider newClientWithReplyDelay(LockOptions options, Duration delay) {
        return SlowReplies.open(
                addresses(),
                delay,
                through -> RedlockLockProvider.builder()
                        .nodes(through)
                        .options(options(Credentials.password(PASSWORD))
                                .mutate()
                                .nodeTimeout(NODE_TIMEOUT.plus(delay))
                                .build())
                        .lockOptions(options)
                        .build());
    }

    /** Commands the data nodes served to clients ({@link RedisServer#clientCommandCalls()}, summed). */
    @Override
    public long serverRequestCount() {
        long n = 0;
        for (RedisServer s : nodes.servers()) {
            try {
                n += s.clientCommandCalls();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return n;
    }

    @Override
    public void expireLease(String lockName) {
        String key = KEYS.lockKey(lockName);
        for (RedisServer n : nodes.servers()) {
            if (n.isRunning()) {
                try (Jedis j = admin(n)) {
                    j.del(key);
                }
            }
        }
    }

    @Override
    public int serverConnectionCount() {
        int count = 0;
        for (RedisServer s : nodes.servers()) {
            try (Jedis j = admin(s)) {
                for (String line : j.clientList().split("\n")) {
                    if (line.contains(" name=distlock ")) {
                        count++;
                    }
                }
            }
        }
        return count;
    }

    /** Stops every node: no majority can be reached. */
    @Override
    public void stopServer() {
        nodes.servers().forEach(RedisServer::kill);
    }

    @Override
    public void startServer() {
        for (RedisServer s : nodes.servers()) {
            if (!s.isRunning()) {
                s.restart(true);
            }
        }
    }

    @Override
    public void close() {
        nodes.close();
    }
}
