package io.distlock.redlock;

import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.redis.internal.RedisKeys;
import io.distlock.tck.TckFixture;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.Jedis;

/**
 * TCK fixture on N real, independent redis-server processes. Our providers' connections are
 * recognised by their client name ({@code distlock}), so admin connections are not counted.
 */
final class RedlockTckFixture implements TckFixture {
    private static final RedisKeys KEYS = new RedisKeys(RedlockOptions.DEFAULT_KEY_PREFIX);

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
        this.nodes = RedisServers.independentMasters(n);
        this.fencing = fencing;
    }

    RedisServers nodes() {
        return nodes;
    }

    List<String> addresses() {
        return List.of(nodes.addresses().split(","));
    }

    /** A provider with full Redlock options on these nodes. */
    RedlockLockProvider open(RedlockOptions options) {
        return RedlockLockProvider.builder().nodes(addresses()).options(options).build();
    }

    @Override
    public String backend() {
        return "redlock-" + nodes.size() + (fencing ? "" : "-nofencing");
    }

    @Override
    public LockProvider newClient(LockOptions options) {
        return open(RedlockOptions.builder()
                .lockOptions(options)
                .nodeTimeout(NODE_TIMEOUT)
                .fencing(fencing)
                .poolSize(4)
                .build());
    }

    @Override
    public void expireLease(String lockName) {
        String key = KEYS.lockKey(lockName);
        for (RedisServer n : nodes.servers()) {
            if (n.isRunning()) {
                try (Jedis j = new Jedis(n.host(), n.port())) {
                    j.del(key);
                }
            }
        }
    }

    @Override
    public void crashClient(LockProvider client) {
        ((RedlockLockProvider) client).simulateCrash();
    }

    @Override
    public int serverConnectionCount() {
        int count = 0;
        for (RedisServer s : nodes.servers()) {
            try (Jedis j = new Jedis(s.host(), s.port())) {
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
