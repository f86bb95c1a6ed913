package io.distlock.spi;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.Ticker;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * The acquisition loop of {@link LockEngine}: one attempt runs within its wait budget, measured on
 * the {@link Ticker}, waiting through {@link Contender#awaitChange(long)} (never a fixed sleep).
 *
 * <ul>
 *   <li>A single try ({@code maxWait} 0) reports a {@link BackendUnavailableException} at once; a
 *       waiting attempt rides it out with jittered backoff (10 ms doubling to 500 ms, bounded by the
 *       deadline) and a fresh {@link Contender}, and throws the last one only when the budget runs
 *       out.
 *   <li>A lock acquired by a reply that left no validity is given back and tried once more at once,
 *       whatever the budget; a second such reply is a {@link BackendUnavailableException}.
 *   <li>An attempt that ends without the lock, for whatever reason, calls {@link Contender#abandon()}.
 * </ul>
 *
 * <p>Observer callbacks and log events are the engine's ({@link LogEvents}).
 */
final class EngineAcquisition {
    private static final Logger log = LockEngine.log;
    private static final long MIN_UNAVAILABLE_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long MAX_UNAVAILABLE_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private EngineAcquisition() {}

    /**
     * One acquisition through {@code engine}: tries, waits and retries until it holds the lock or the
     * wait budget runs out.
     *
     * @param maxWaitNanos 0 for a single try; {@link Long#MAX_VALUE} for no limit
     */
    static Optional<Lease> acquire(LockEngine engine, String name, long maxWaitNanos, LockOptions lockOptions)
            throws InterruptedException {
        engine.checkOpen(name);
        LockOptions options = engine.options();
        LockDriver driver = engine.driver();
        String backend = engine.backend();
        boolean observed = engine.observed();
        Ticker ticker = options.ticker();
        long start = ticker.read();
        long deadline = maxWaitNanos == Long.MAX_VALUE ? Deadlines.NEVER : Deadlines.after(start, maxWaitNanos);
        if (observed) {
            engine.notify(o -> o.attempt(backend, name, Duration.ofNanos(maxWaitNanos)));
        }
        if (log.isTraceEnabled()) {
            LogEvents.log(
                    log,
                    Level.TRACE,
                    LogEvents.ATTEMPT,
                    null,
                    LogEvents.LOCK,
                    name,
                    LogEvents.BACKEND,
                    backend,
                    LogEvents.MAX_WAIT_MS,
                    maxWaitNanos == Long.MAX_VALUE ? -1L : TimeUnit.NANOSECONDS.toMillis(maxWaitNanos));
        }
        LockEngine.LossRelay relay = new LockEngine.LossRelay();
        AcquireContext ctx = lockOptions == options
                ? new AcquireContext(name, backend, options, relay, engine.validityNanos(), deadline)
                : new AcquireContext(
                        name, backend, lockOptions, relay, AcquireContext.validityNanos(lockOptions), deadline);
        Contender contender = driver.contender(ctx);
        boolean acquired = false;
        int lateReplies = 0;
        long backoffNanos = MIN_UNAVAILABLE_BACKOFF_NANOS;
        Throwable failure = null;
        try {
            while (true) {
                Optional<HeldLock> held;
                long sentAt = ticker.read();
                try {
                    held = contender.tryAcquire();
                } catch (BackendUnavailableException e) {
                    // A single try reports unavailability at once. A wait rides out a transient
                    // outage: back off (jittered, bounded by the deadline) and try again with a fresh
                    // contender; if the deadline comes first, the last unavailability is thrown.
                    if (maxWaitNanos == 0 || Deadlines.passed(ticker, deadline)) {
                        throw e;
                    }
                    abandonQuietly(name, contender, e);
                    contender = driver.contender(ctx);
                    long pause = Math.min(
                            Deadlines.remaining(ticker, deadline),
                            backoffNanos / 2 + ThreadLocalRandom.current().nextLong(backoffNanos));
                    backoffNanos = Math.min(backoffNanos * 2, MAX_UNAVAILABLE_BACKOFF_NANOS);
                    TimeUnit.NANOSECONDS.sleep(pause);
                    engine.checkOpen(name);
                    if (Deadlines.passed(ticker, deadline)) {
                        throw e;
                    }
                    continue;
                }
                if (held.isPresent()) {
                    HeldLock h = held.get();
                    // held from the request that got it, not from the start of the wait: the hold
                    // time reported to observers and maxHoldTime count holding, not waiting
                    EngineLease lease = new EngineLease(engine, name, h, ctx, ctx.acquiringRequestSentAt(sentAt));
                    if (!Deadlines.passed(ticker, lease.deadline())) {
                        acquired = true;
                        engine.register(lease, relay);
                        if (observed) {
                            long waited = ticker.read() - start;
                            engine.notify(o -> o.acquired(backend, name, Duration.ofNanos(waited), h.fencingToken()));
                        }
                        if (log.isDebugEnabled()) {
                            long waited = ticker.read() - start;
                            LogEvents.log(
                                    log,
                                    Level.DEBUG,
                                    LogEvents.ACQUIRED,
                                    null,
                                    LogEvents.LOCK,
                                    name,
                                    LogEvents.BACKEND,
                                    backend,
                                    LogEvents.TOKEN,
                                    h.fencingToken(),
                                    LogEvents.WAITED_MS,
                                    TimeUnit.NANOSECONDS.toMillis(waited));
                        }
                        return Optional.of(lease);
                    }
                    // Acquired, but the reply came too late to leave any validity: give it back. The
                    // lock was free, so "held by someone else" would be a lie: try once more at once,
                    // whatever the wait budget, and if the server is still that slow, say so.
                    engine.releaseQuietly(name, h);
                    contender = driver.contender(ctx);
                    if (++lateReplies > 1) {
                        throw new BackendUnavailableException(
                                "the server answered too slowly: the lock was acquired with no validity left"
                                        + " (lease " + ctx.options().leaseTime() + ", safety margin "
                                        + ctx.options().safetyMargin() + ")",
                                name,
                                backend,
                                null);
                    }
                    continue;
                }
                if (Deadlines.passed(ticker, deadline)) {
                    long waited = ticker.read() - start;
                    if (observed) {
                        engine.notify(o -> o.notAcquired(backend, name, Duration.ofNanos(waited)));
                    }
                    if (log.isDebugEnabled()) {
                        LogEvents.log(
                                log,
                                Level.DEBUG,
                                LogEvents.NOT_ACQUIRED,
                                null,
                                LogEvents.LOCK,
                                name,
                                LogEvents.BACKEND,
                                backend,
                                LogEvents.WAITED_MS,
                                TimeUnit.NANOSECONDS.toMillis(waited));
                    }
                    return Optional.empty();
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for lock '" + name + "'");
                }
                contender.awaitChange(deadline);
                engine.checkOpen(name);
            }
        } catch (InterruptedException | RuntimeException | Error e) {
            failure = e;
            if (observed) {
                engine.notify(o -> o.failed(backend, name, e));
            }
            LogEvents.log(
                    log,
                    Level.DEBUG,
                    LogEvents.ACQUIRE_FAILED,
                    e,
                    LogEvents.LOCK,
                    name,
                    LogEvents.BACKEND,
                    backend,
                    LogEvents.ERROR,
                    LogEvents.errorName(e));
            throw e;
        } finally {
            if (!acquired) {
                // whatever the reason the attempt ended without the lock: remove what it left behind
                try {
                    contender.abandon();
                } catch (RuntimeException cleanup) {
                    if (failure != null) {
                        failure.addSuppressed(cleanup);
                    } else {
                        LogEvents.log(
                                log,
                                Level.DEBUG,
                                LogEvents.ABANDON_FAILED,
                                cleanup,
                                LogEvents.LOCK,
                                name,
                                LogEvents.BACKEND,
                                backend,
                                LogEvents.ERROR,
                                LogEvents.errorName(cleanup));
                    }
                }
            }
        }
    }

    private static void abandonQuietly(String name, Contender c, Throwable cause) {
        try {
            c.abandon();
        } catch (RuntimeException cleanup) {
            cause.addSuppressed(cleanup);
        }
    }
}
