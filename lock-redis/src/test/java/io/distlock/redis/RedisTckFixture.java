package io.distlock.redis;

import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.tck.TckFixture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.Jedis;

/** TCK fixture on one local Redis server. */
final class RedisTckFixture implements TckFixture {
    private static final Pattern CONNECTED = Pattern.compile("connected_clients:(\\d+)");

    private final LocalRedisServer server;
    private Jedis admin;

    RedisTckFixture() {
        this.server = LocalRedisServer.start();
        this.admin = server.admin();
    }

    LocalRedisServer server() {
        return server;
    }

    @Override
    public String backend() {
        return "redis";
    }

    @Override
    public LockProvider newClient(LockOptions options) {
        return RedisLockProvider.builder()
                .standalone(server.host(), server.port())
                .options(RedisLockOptions.builder()
                        .lockOptions(options)
                        .poolSize(4)
                        .build())
                .build();
    }

    @Override
    public synchronized void expireLease(String lockName) {
        admin.del(new io.distlock.redis.internal.RedisKeys(RedisLockOptions.DEFAULT_KEY_PREFIX).lockKey(lockName));
    }

    @Override
    public void crashClient(LockProvider client) {
        ((RedisLockProvider) client).simulateCrash();
    }

    @Override
    public synchronized int serverConnectionCount() {
        Matcher m = CONNECTED.matcher(admin.info("clients"));
        if (!m.find()) {
            throw new IllegalStateException("INFO clients has no connected_clients");
        }
        return Integer.parseInt(m.group(1)) - 1; // minus this admin connection
    }

    @Override
    public synchronized void stopServer() {
        admin.close();
        server.stop();
    }

    @Override
    public synchronized void startServer() {
        server.restart();
        admin = server.admin();
    }

    @Override
    public synchronized void close() {
        try {
            admin.close();
        } finally {
            server.close();
        }
    }
}
