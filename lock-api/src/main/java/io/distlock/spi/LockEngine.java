package io.distlock.spi;

import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockNames;
import io.distlock.LockObserver;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The shared half of every provider: it turns a {@link LockDriver}'s primitives into the full
 * {@link LockProvider} contract. Backends build their public provider class around one engine.
 *
 * <p>What the engine does, identically for every backend:
 *
 * <ul>
 *   <li>checks arguments (lock names through {@link LockNames}, durations);
 *   <li>runs acquisition attempts within their wait budget, measured on the {@link Ticker}, waiting
 *       through {@link Contender#awaitChange(long)} (never a fixed sleep) and calling {@link
 *       Contender#abandon()} when an attempt ends without the lock; a waiting attempt rides out a
 *       transient {@link BackendUnavailableException} with jittered backoff (10 ms doubling to 500
 *       ms) and throws the last one only if the wait budget runs out, while a single try throws at
 *       once;
 *   <li>tracks each lease's validity deadline, renews {@link RenewalMode#WATCHDOG} leases every
 *       {@code leaseTime * renewalFraction} on a watchdog thread — the leases due at one tick of a
 *       grid all leases share, together, through the driver's {@link LockDriver#batchRenewal()}, so
 *       a driver that renews many locks per request keeps its renewal traffic independent of the
 *       number of leases ({@link RenewalBatches}) — and marks a lease lost (completing {@link
 *       Lease#lost()}) when a renewal finds another owner, when the driver reports a loss, or when
 *       the deadline passes — checked on a separate timer thread that does no I/O, so a renewal
 *       stuck in the network cannot delay the loss signal;
 *   <li>releases owner-only and at most once per lease;
 *   <li>on {@link #close()}: releases held leases, fails waiters, stops its two threads ({@code
 *       distlock-<backend>-watchdog-N} and {@code distlock-<backend>-timer-N}, both daemon) and
 *       closes the driver.
 * </ul>
 */
public final class LockEngine implements LockProvider {
    /** The logger of every engine event; see {@link LogEvents}. */
    static final Logger log = LoggerFactory.getLogger(LockEngine.class);

    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    /** Shortest idle horizon of the timer thread (see {@link LeaseTimer}). */
    private static final long MIN_IDLE_HORIZON_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final LockDriver driver;
    private final LockOptions options;
    private final String backend;
    private final Capabilities capabilities;
    private final LeaseTimer watchdog;
    private final LeaseTimer timer;
    private final RenewalBatches renewals;
    private final Set<EngineLease> leases = ConcurrentHashMap.newKeySet();
    /** Leases released with a delay that the engine still holds for the caller (client-kept). */
    private final Set<EngineLease> lingering = ConcurrentHashMap.newKeySet();

    private final Object lifecycle = new Object();
    /** Whether an observer other than {@link LockObserver#NONE} is set (else no callback is built). */
    private final boolean observed;
    /** {@code leaseTime - safetyMargin} in nanoseconds. */
    private final long validityNanos;
    /** {@code leaseTime * renewalFraction} in nanoseconds (at least 1). */
    private final long renewalIntervalNanos;

    private volatile boolean closed;

    private LockEngine(LockDriver driver, LockOptions options) {
        this.driver = Objects.requireNonNull(driver, "driver must not be null");
        this.options = Objects.requireNonNull(options, "options must not be null");
        this.backend = Objects.requireNonNull(driver.backend(), "driver.backend()");
        Capabilities caps = driver.capabilities();
        if (!options.autoRenew()) {
            // the same on every backend: watchdog drivers do not renew, and the engine ends a
            // session driver's lease at its lease time
            caps = caps.mutate().automaticRenewal(false).build();
        }
        this.capabilities = caps;
        this.observed = options.observer() != LockObserver.NONE;
        this.validityNanos = AcquireContext.validityNanos(options);
        this.renewalIntervalNanos = Math.max(1, (long) (options.leaseTime().toNanos() * options.renewalFraction()));
        int n = SEQUENCE.incrementAndGet();
        this.watchdog = new LeaseTimer("distlock-" + backend + "-watchdog-" + n, backend, options.ticker());
        // idle horizon: half the delay of the timer's usual first task (a first renewal, else a
        // validity check), so that arming a lease does not wake an idle timer thread; none for
        // very short leases, whose idle thread would otherwise wake hundreds of times a second
        long usualDelay = driver.renewalMode() == RenewalMode.WATCHDOG && options.autoRenew()
                ? Math.min(renewalIntervalNanos, validityNanos)
                : validityNanos;
        long idleHorizon = usualDelay / 2 >= MIN_IDLE_HORIZON_NANOS ? usualDelay / 2 : 0;
        this.timer = new LeaseTimer("distlock-" + backend + "-timer-" + n, backend, options.ticker(), idleHorizon);
        this.renewals = new RenewalBatches(
                this,
                Objects.requireNonNull(driver.batchRenewal(), "driver.batchRenewal()"),
                options.ticker().read(),
                renewalIntervalNanos);
        timer.afterPass(renewals::flush);
    }

    /** An engine driving {@code driver} with {@code options}. The engine owns the driver. */
    public static LockEngine create(LockDriver driver, LockOptions options) {
        return new LockEngine(driver, options);
    }

    @Override
    public DistributedLock lock(String name) {
        LockNames.validate(name);
        checkOpen(name);
        return new EngineLock(this, name);
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public String backend() {
        return backend;
    }

    /** The options this engine runs with. */
    public LockOptions options() {
        return options;
    }

    /** The driver (for backend-specific extensions of the provider). */
    public LockDriver driver() {
        return driver;
    }

    @Override
    public List<Lease> heldLeases() {
        return List.copyOf(leases);
    }

    /** Whether {@link #close()} or {@link #abandon()} has been called. */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
        }
        timer.close();
        RuntimeException failure = null;
        List<EngineLease> toRelease = new ArrayList<>(leases);
        toRelease.addAll(lingering);
        lingering.clear();
        for (EngineLease lease : toRelease) {
            try {
                lease.releaseOnClose();
            } catch (RuntimeException e) {
                LogEvents.log(
                        log,
                        Level.DEBUG,
                        LogEvents.CLOSE_RELEASE_FAILED,
                        e,
                        LogEvents.LOCK,
                        lease.lockName(),
                        LogEvents.BACKEND,
                        backend,
                        LogEvents.ERROR,
                        LogEvents.errorName(e));
            }
        }
        watchdog.close();
        try {
            driver.close();
        } catch (RuntimeException e) {
            failure = e;
        }
        awaitThreads();
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * The {@link FaultHooks} of a provider built on this engine: {@code simulateCrash()} runs {@code
     * beforeCrash} (for example to drop a session without closing it) and then {@link #abandon()}.
     */
    public FaultHooks faultHooks(Runnable beforeCrash) {
        Objects.requireNonNull(beforeCrash, "beforeCrash must not be null");
        return () -> {
            beforeCrash.run();
            abandon();
        };
    }

    /**
     * Simulates a crash of this client: stops renewing and closes the driver without releasing
     * anything, the way a killed process would leave its locks (they expire on the server). Held
     * leases are reported lost. For tests and fault injection.
     */
    public void abandon() {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
        }
        timer.close();
        watchdog.close();
        for (EngineLease lease : new ArrayList<>(leases)) {
            lease.markLost(new LeaseLostException("provider was abandoned", lease.lockName(), backend), Level.DEBUG);
            leases.remove(lease);
        }
        lingering.clear();
        try {
            driver.close();
        } catch (RuntimeException e) {
            LogEvents.log(
                    log,
                    Level.DEBUG,
                    LogEvents.ABANDON_DRIVER_CLOSE_FAILED,
                    e,
                    LogEvents.BACKEND,
                    backend,
                    LogEvents.ERROR,
                    LogEvents.errorName(e));
        }
        awaitThreads();
    }

    private void awaitThreads() {
        try {
            if (!watchdog.awaitTermination(5, TimeUnit.SECONDS) || !timer.awaitTermination(5, TimeUnit.SECONDS)) {
                LogEvents.log(log, Level.WARN, LogEvents.CLOSE_THREADS_STILL_RUNNING, null, LogEvents.BACKEND, backend);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    void checkOpen(String name) {
        if (closed) {
            throw new IllegalStateException("provider is closed (lock '" + name + "', backend " + backend + ")");
        }
    }

    /**
     * The acquisition loop (see {@link EngineAcquisition}) with the options of one handle ({@link
     * DistributedLock#withLeaseTime}, {@link DistributedLock#withAutoRenew}); the observer and
     * ticker are always the engine's.
     *
     * @param maxWaitNanos 0 for a single try; {@link Long#MAX_VALUE} for no limit
     */
    Optional<Lease> acquire(String name, long maxWaitNanos, LockOptions lockOptions) throws InterruptedException {
        return EngineAcquisition.acquire(this, name, maxWaitNanos, lockOptions);
    }

    /** Gives back a lock acquired for a lease that will not be handed out. */
    void releaseQuietly(String name, HeldLock h) {
        try {
            h.release();
        } catch (RuntimeException e) {
            LogEvents.log(
                    log,
                    Level.DEBUG,
                    LogEvents.RELEASE_LATE_ACQUISITION_FAILED,
                    e,
                    LogEvents.LOCK,
                    name,
                    LogEvents.BACKEND,
                    backend,
                    LogEvents.ERROR,
                    LogEvents.errorName(e));
        }
    }

    /** Registers a new lease and arms its timers, or releases it if the engine closed meanwhile. */
    void register(EngineLease lease, LossRelay relay) {
        synchronized (lifecycle) {
            if (!closed) {
                leases.add(lease);
                lease.start();
                relay.attach(lease);
                return;
            }
        }
        releaseQuietly(lease.lockName(), lease.held());
        throw new IllegalStateException(
                "provider was closed during acquisition (lock '" + lease.lockName() + "', backend " + backend + ")");
    }

    void forget(EngineLease lease) {
        leases.remove(lease);
    }

    /**
     * Keeps a lease whose release was delayed ({@link Lease#releaseAfter}, client-kept) until its
     * delay ends, so that {@link #close()} can release it; returns false if the engine is closed.
     */
    boolean linger(EngineLease lease) {
        synchronized (lifecycle) {
            if (closed) {
                return false;
            }
            lingering.add(lease);
            return true;
        }
    }

    void stopLingering(EngineLease lease) {
        lingering.remove(lease);
    }

    /** Whether the server enforces each lease's own time (else the engine frees expired leases). */
    boolean serverKeepsLeaseTimes() {
        return capabilities.leaseTiming() == Capabilities.LeaseTiming.SERVER;
    }

    LeaseTimer watchdog() {
        return watchdog;
    }

    LeaseTimer timer() {
        return timer;
    }

    RenewalBatches renewals() {
        return renewals;
    }

    RenewalMode renewalMode() {
        return driver.renewalMode();
    }

    /** Whether callbacks reach an observer; callers skip building them when not. */
    boolean observed() {
        return observed;
    }

    /** {@code leaseTime - safetyMargin} in nanoseconds. */
    long validityNanos() {
        return validityNanos;
    }

    void notify(Consumer<LockObserver> call) {
        try {
            call.accept(options.observer());
        } catch (RuntimeException e) {
            LogEvents.log(
                    log,
                    Level.WARN,
                    LogEvents.OBSERVER_FAILED,
                    e,
                    LogEvents.BACKEND,
                    backend,
                    LogEvents.ERROR,
                    LogEvents.errorName(e));
        }
    }

    /** Forwards driver loss reports to the lease once it exists; remembers an early report. */
    static final class LossRelay implements Consumer<LeaseLostException> {
        private EngineLease lease;
        private LeaseLostException early;

        @Override
        public void accept(LeaseLostException e) {
            EngineLease target;
            synchronized (this) {
                target = lease;
                if (target == null) {
                    if (early == null) {
                        early = e;
                    }
                    return;
                }
            }
            target.markLost(e);
        }

        void attach(EngineLease l) {
            LeaseLostException pending;
            synchronized (this) {
                lease = l;
                pending = early;
            }
            if (pending != null) {
                l.markLost(pending);
            }
        }

        void validityChanged() {
            EngineLease target;
            synchronized (this) {
                target = lease;
            }
            if (target != null) {
                target.scheduleExpiryCheck();
            }
        }
    }
}
