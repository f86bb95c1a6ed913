package io.distlock.compare.cli.peers;

import io.distlock.compare.LockClient;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lock.LockResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.etcd.jetcd.support.Observers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Peer: jetcd's Lock client (etcd's server-side lock RPC) on a lease kept alive by jetcd. One
 * jetcd Client per client. A try that times out revokes nothing: the pending lock request is
 * abandoned with its lease when the client closes, as jetcd users do. The lock of {@code name} is
 * under the key {@code <keyPrefix><name>}.
 */
public final class JetcdLockClient implements LockClient {
    private final Client client;
    private final String keyPrefix;
    private final long leaseId;
    private final CloseableClient keepAlive;

    /** A lock client over {@code client}, which it closes on {@link #close()}. */
    public JetcdLockClient(Client client, String keyPrefix) {
        this.client = client;
        this.keyPrefix = keyPrefix;
        try {
            this.leaseId =
                    client.getLeaseClient().grant(10).get(10, TimeUnit.SECONDS).getID();
        } catch (InterruptedException e) {
            client.close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            client.close();
            throw new IllegalStateException("jetcd lease grant failed", e);
        }
        this.keepAlive = client.getLeaseClient().keepAlive(leaseId, Observers.observer(r -> {}));
    }

    @Override
    public Optional<Hold> acquire(String name, Duration maxWait) throws InterruptedException {
        ByteSequence key = ByteSequence.from(keyPrefix + name, StandardCharsets.UTF_8);
        // etcd's lock RPC has no "try": a zero wait gets a short deadline instead
        long waitNanos = maxWait.isZero() ? TimeUnit.SECONDS.toNanos(5) : maxWait.toNanos();
        try {
            LockResponse r = client.getLockClient().lock(key, leaseId).get(waitNanos, TimeUnit.NANOSECONDS);
            ByteSequence owned = r.getKey();
            return Optional.of(() -> {
                try {
                    client.getLockClient().unlock(owned).get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException("jetcd unlock failed", e);
                }
            });
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (ExecutionException e) {
            throw new IllegalStateException("jetcd lock failed", e);
        }
    }

    @Override
    public void close() {
        keepAlive.close();
        try {
            client.getLeaseClient().revoke(leaseId).get(5, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // best effort
        }
        client.close();
    }
}
