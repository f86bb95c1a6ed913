package io.distlock.compare.cli.peers;

import io.distlock.compare.LockClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryOneTime;

/**
 * Peer: Curator's {@code InterProcessMutex}. One CuratorFramework (session) per client; the lock of
 * {@code name} lives under {@code <basePath>/<name>}.
 */
public final class CuratorLockClient implements LockClient {
    private final CuratorFramework curator;
    private final String basePath;
    private final Map<String, InterProcessMutex> mutexes = new ConcurrentHashMap<>();

    /** A client of {@code connectString}, logged in with digest {@code user:password} when {@code user} is not null. */
    public CuratorLockClient(String connectString, String user, String password, String basePath) {
        CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(10_000)
                .connectionTimeoutMs(5_000)
                .retryPolicy(new RetryOneTime(100));
        if (user != null) {
            b.authorization("digest", (user + ":" + password).getBytes(StandardCharsets.UTF_8));
        }
        this.curator = b.build();
        this.basePath = basePath;
        curator.start();
        try {
            if (!curator.blockUntilConnected(10, TimeUnit.SECONDS)) {
                curator.close();
                throw new IllegalStateException("Curator could not connect to " + connectString);
            }
        } catch (InterruptedException e) {
            curator.close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Optional<Hold> acquire(String name, Duration maxWait) throws InterruptedException {
        InterProcessMutex m = mutexes.computeIfAbsent(name, n -> new InterProcessMutex(curator, basePath + "/" + n));
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
