package io.distlock.compare.cli.peers;

import io.distlock.compare.LockClient;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Peer: Redisson's {@code RLock} (watchdog-renewed, pub/sub wake-up). One Redisson instance per
 * client, with small pools so that many clients fit on one machine. Its lock of {@code name} is the
 * key {@code <keyPrefix>:redisson:<name>}.
 */
public final class RedissonLockClient implements LockClient {
    private final RedissonClient redisson;
    private final String keyPrefix;

    /**
     * A client of the server at {@code hostPort}, logging in as {@code user} (may be null) with
     * {@code password} (may be null) on {@code database}.
     */
    public RedissonLockClient(String hostPort, String user, String password, int database, String keyPrefix) {
        this.redisson = Redisson.create(smallConfig(hostPort, user, password, database));
        this.keyPrefix = keyPrefix;
    }

    @Override
    public Optional<Hold> acquire(String name, Duration maxWait) throws InterruptedException {
        RLock lock = redisson.getLock(keyPrefix + ":redisson:" + name);
        boolean ok = maxWait.isZero() ? lock.tryLock() : lock.tryLock(maxWait.toNanos(), TimeUnit.NANOSECONDS);
        return ok ? Optional.of(lock::unlock) : Optional.empty();
    }

    @Override
    public void close() {
        redisson.shutdown(0, 2, TimeUnit.SECONDS);
    }

    /** One node, two netty threads and tiny pools, so that many clients fit on one machine. */
    static Config smallConfig(String hostPort, String user, String password, int database) {
        Config config = new Config();
        config.setNettyThreads(2);
        // the watchdog's lease: 10 s like distlock's targets (Redisson's default is 30 s), so that both
        // renew every 3.3 s and the renewal traffic compares like for like
        config.setLockWatchdogTimeout(10_000);
        if (user != null) {
            config.setUsername(user);
        }
        if (password != null) {
            config.setPassword(password);
        }
        config.useSingleServer()
                .setAddress("redis://" + hostPort)
                .setDatabase(database)
                .setConnectionMinimumIdleSize(1)
                .setConnectionPoolSize(2)
                .setSubscriptionConnectionMinimumIdleSize(1)
                .setSubscriptionConnectionPoolSize(1);
        return config;
    }
}
