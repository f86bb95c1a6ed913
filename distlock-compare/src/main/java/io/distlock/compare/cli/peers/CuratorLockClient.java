package io.distlock.compare.cli.peers;

import io.distlock.compare.LockClient;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryOneTime;

/** Peer: Curator's {@code InterProcessMutex}. One CuratorFramework (session) per client. */
public final class CuratorLockClient implements LockClient {
    private final CuratorFramework curator;
    private final Map<String, InterProcessMutex> mutexes = new ConcurrentHashMap<>();

    public CuratorLockClient(String connectString) {
        this.curator = CuratorFrameworkFactory.newClient(connectString, 10_000, 5_000, new RetryOneTime(100));
        curator.start();
        try {
            if (!curator.blockUntilConnected(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("Curator could not connect to " + connectString);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Optional<Hold> acquire(String name, Duration maxWait) throws InterruptedException {
        InterProcessMutex m = mutexes.computeIfAbsent(name, n -> new InterProcessMutex(curator, "/curator-peer/" + n));
        try {
            if (!m.acquire(maxWait.toNanos(), TimeUnit.NANOSECONDS)) {
                return Optional.empty();
            }
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Curator acquire failed", e);
        }
        return Optional.of(() -> {
            try {
                m.release();
            } catch (Exception e) {
                throw new IllegalStateException("Curator release failed", e);
            }
        });
    }

    @Override
    public void close() {
        curator.close();
    }
}
