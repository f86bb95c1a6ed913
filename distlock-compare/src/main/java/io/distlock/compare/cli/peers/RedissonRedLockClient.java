package io.distlock.compare.cli.peers;

import io.distlock.compare.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * Peer: Redisson's {@code RedissonRedLock} (deprecated by Redisson, it locks the nodes one after
 * another). One Redisson instance per node and client, with small pools. Its lock of {@code name}
 * is the key {@code <keyPrefix>:redisson-redlock:<name>} on every node.
 */
@SuppressWarnings("deprecation")
public final class RedissonRedLockClient implements LockClient {
    private final List<RedissonClient> nodes = new ArrayList<>();
    private final String keyPrefix;

    /** A client of the masters at {@code hostPorts}, each logged in as {@code user} (may be null) with {@code password}. */
    public RedissonRedLockClient(List<String> hostPorts, String user, String password, String keyPrefix) {
        this.keyPrefix = keyPrefix;
        try {
            for (String hp : hostPorts) {
                nodes.add(Redisson.create(RedissonLockClient.smallConfig(hp, user, password, 0)));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public Optional<Hold> acquire(String name, Duration maxWait) throws InterruptedException {
        RLock[] locks = nodes.stream()
                .map(r -> r.getLock(keyPrefix + ":redisson-redlock:" + name))
                .toArray(RLock[]::new);
        RedissonRedLock lock = new RedissonRedLock(locks);
        boolean ok = maxWait.isZero() ? lock.tryLock() : lock.tryLock(maxWait.toNanos(), TimeUnit.NANOSECONDS);
        return ok ? Optional.of(lock::unlock) : Optional.empty();
    }

    @Override
    public void close() {
        nodes.forEach(r -> r.shutdown(0, 2, TimeUnit.SECONDS));
    }
}
