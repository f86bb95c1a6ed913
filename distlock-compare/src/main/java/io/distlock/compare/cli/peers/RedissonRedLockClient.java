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
 * another). One Redisson instance per node and client, with small pools.
 */
@SuppressWarnings("deprecation")
public final class RedissonRedLockClient implements LockClient {
    private final List<RedissonClient> nodes = new ArrayList<>();

    public RedissonRedLockClient(List<String> hostPorts) {
        for (String hp : hostPorts) {
            nodes.add(Redisson.create(RedissonLockClient.smallConfig(hp)));
        }
    }

    @Override
    public Optional<Hold> acquire(String name, Duration maxWait) throws InterruptedException {
        RLock[] locks = nodes.stream()
                .map(r -> r.getLock("redisson-redlock-peer:" + name))
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
