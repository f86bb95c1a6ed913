package io.distlock.etcd.internal;

import io.distlock.BackendUnavailableException;
import io.etcd.jetcd.ByteSequence;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the keys of released and abandoned attempts, and keeps deleting in the background a key
 * whose delete failed: a key left on a live session lease is kept alive by the keepalive and would
 * block its lock for as long as the provider lives. Internal.
 */
final class KeyDeletes {
    private static final Logger log = LoggerFactory.getLogger(KeyDeletes.class);

    /** First and largest pause between background deletes of a stranded key. */
    private static final long RETRY_FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private static final long RETRY_MAX_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final Kv kv;
    private final SessionThread thread;
    private final long requestTimeoutNanos;
    private final BooleanSupplier closed;

    KeyDeletes(Kv kv, SessionThread thread, long requestTimeoutNanos, BooleanSupplier closed) {
        this.kv = kv;
        this.thread = thread;
        this.requestTimeoutNanos = requestTimeoutNanos;
        this.closed = closed;
    }

    /**
     * Deletes one of our keys in one request bounded by the request timeout and returns how many
     * keys went (0 if it was already gone). If the request fails (a leader election, a partition, a
     * stalled server), the failure is thrown and the key is still deleted in the background, retried
     * with pauses from 100 ms doubling to 2 s until it succeeds, the session {@code s} dies (the key
     * goes with its lease) or the provider closes (it revokes the lease). The key's slot is not
     * given back while its delete is unanswered (the caller frees it only when this returns), so a
     * late delete never touches a later attempt's key.
     *
     * @param s the session the key hangs on; null if unknown (then nothing is retried)
     */
    long delete(ByteSequence key, Session s, String lockName, String what) {
        try {
            return Rpc.await(kv.delete(key), requestTimeoutNanos, what, lockName)
                    .getDeleted();
        } catch (BackendUnavailableException e) {
            if (s != null) {
                retryLater(key, s, lockName, RETRY_FIRST_NANOS);
            }
            throw e;
        }
    }

    private void retryLater(ByteSequence key, Session s, String lockName, long delayNanos) {
        if (closed.getAsBoolean() || !s.alive()) {
            return;
        }
        try {
            thread.schedule(
                    () -> {
                        if (closed.getAsBoolean() || !s.alive()) {
                            return;
                        }
                        thread.within(kv.delete(key), requestTimeoutNanos).whenComplete((r, e) -> {
                            if (e == null) {
                                log.debug("distlock.etcd.stranded_key_deleted lock={}", lockName);
                            } else {
                                log.debug(
                                        "distlock.etcd.stranded_key_delete_failed lock={} error={}",
                                        lockName,
                                        e.toString());
                                retryLater(key, s, lockName, Math.min(delayNanos * 2, RETRY_MAX_NANOS));
                            }
                        });
                    },
                    delayNanos);
        } catch (RejectedExecutionException closing) {
            // the provider is closing: it revokes the session lease, and the key with it
        }
    }
}
