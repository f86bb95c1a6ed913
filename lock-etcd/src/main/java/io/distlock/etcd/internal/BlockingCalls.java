package io.distlock.etcd.internal;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The requests an acquiring thread blocks on (a lease grant, a transaction, a read), each bounded
 * by the request timeout ({@link Rpc#await}). {@link #failAll()} fails them at once, so a thread
 * blocked on a reply learns that the provider closed promptly instead of after the timeout; {@link
 * #refuseAll} does the same when the server refused the credentials or the TLS trust rejected it
 * ({@link ChannelTap}), instead of after jetcd's retries. Internal.
 */
final class BlockingCalls {
    private final long timeoutNanos;
    private final Set<CompletableFuture<?>> awaiting = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    BlockingCalls(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
    }

    /** {@link Rpc#await} on {@code f}; fails at once if the provider is (or becomes) closed. */
    <T> T await(CompletableFuture<T> f, String what, String lockName) {
        awaiting.add(f);
        try {
            if (closed) {
                f.completeExceptionally(new IllegalStateException("provider is closed"));
            }
            return Rpc.await(f, timeoutNanos, what, lockName);
        } finally {
            awaiting.remove(f);
        }
    }

    /** Fails every call now in flight. */
    void failAll() {
        for (CompletableFuture<?> f : awaiting) {
            f.completeExceptionally(new IllegalStateException("provider is closed"));
        }
    }

    /** Fails every call now in flight with {@code refusal} (a refusal no retry can fix). */
    void refuseAll(Throwable refusal) {
        for (CompletableFuture<?> f : awaiting) {
            f.completeExceptionally(refusal);
        }
    }

    /** Fails every call in flight and every later one. */
    void close() {
        closed = true;
        failAll();
    }
}
