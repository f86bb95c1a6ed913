package io.distlock.spi;

import java.util.Optional;

/**
 * One acquisition attempt of one lock, possibly spanning several tries and waits. Created by
 * {@link LockDriver#contender(AcquireContext)}, used by one thread.
 *
 * <p>The engine calls {@link #tryAcquire()}; if that returns empty and wait budget remains, it
 * calls {@link #awaitChange(long)} and tries again. When the attempt ends without the lock
 * (budget exhausted, interruption, error, provider closed) the engine calls {@link #abandon()}.
 */
public interface Contender {

    /**
     * Tries once, without waiting for other holders.
     *
     * <p>If the thread is interrupted while a request is in flight, finish (or abandon) the request,
     * keep the interrupt flag set, and return normally or throw {@code
     * BackendUnavailableException}; never turn the interrupt into a different outcome. The engine
     * checks the flag and throws {@link InterruptedException} itself.
     *
     * @return the held lock, or empty if someone else holds it
     * @throws io.distlock.BackendUnavailableException if the backend could not be asked
     */
    Optional<HeldLock> tryAcquire();

    /**
     * Blocks until the lock may have become free (a notification, the holder's TTL running out) or
     * the ticker passes {@code deadlineNanos}. Spurious returns are allowed; the engine simply tries
     * again. Must return promptly when the driver is closed.
     *
     * @param deadlineNanos ticker reading at which to give up; {@link Long#MAX_VALUE} for never
     * @throws InterruptedException if the thread is interrupted
     */
    void awaitChange(long deadlineNanos) throws InterruptedException;

    /**
     * The attempt ended without the lock: remove anything it left on the server (a queue node, a
     * key, a subscription). Never called after {@link #tryAcquire()} returned a lock.
     */
    default void abandon() {}
}
