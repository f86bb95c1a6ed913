package io.distlock.compare.cli.peers;

import io.distlock.compare.LockClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

/**
 * Peer: the hand-rolled Redis lock found in many code bases — {@code SET key value NX PX ttl}, and
 * when that fails, sleep a fixed second and try again; release with a compare-and-delete script.
 * One connection per client, used by one thread at a time (a thread that sleeps does not hold it).
 * Its lock of {@code name} is the key {@code <keyPrefix>:setnx:<name>}.
 */
public final class SetnxSleepLockClient implements LockClient {
    private static final String RELEASE =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
    private static final long SLEEP_MS = 1_000;

    private final Jedis jedis;
    private final String keyPrefix;

    /** A client on {@code jedis}, which it closes on {@link #close()}. */
    public SetnxSleepLockClient(Jedis jedis, String keyPrefix) {
        this.jedis = jedis;
        this.keyPrefix = keyPrefix;
    }

    @Override
    public Optional<Hold> acquire(String name, Duration maxWait) throws InterruptedException {
        String key = keyPrefix + ":setnx:" + name;
        String value = UUID.randomUUID().toString();
        long deadline = System.nanoTime() + maxWait.toNanos();
        while (true) {
            if ("OK".equals(set(key, value))) {
                return Optional.of(() -> release(key, value));
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.empty();
            }
            Thread.sleep(Math.min(SLEEP_MS, Math.max(1, left / 1_000_000))); // the pattern under test
        }
    }

    private synchronized String set(String key, String value) {
        return jedis.set(key, value, SetParams.setParams().nx().px(30_000));
    }

    private synchronized void release(String key, String value) {
        jedis.eval(RELEASE, List.of(key), List.of(value));
    }

    @Override
    public synchronized void close() {
        jedis.close();
    }
}
