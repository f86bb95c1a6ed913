package io.distlock.spi;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.Ticker;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.event.Level;

/** The engine's lease: state machine HELD → (LOST →) RELEASED. */
final class EngineLease implements Lease {

    private enum State {
        HELD,
        LOST,
        /** Released by the caller with a delay the engine keeps (client-kept lease times). */
        LINGERING,
        RELEASED
    }

    private final LockEngine engine;
    private final String name;
    private final HeldLock held;
    private final AcquireContext ctx;
    private final Ticker ticker;
    private final long acquiredAt;
    /**
     * {@code leaseTime * renewalFraction} of this lease's options, in nanoseconds (at least 1); of the
     * lease time of the last {@link #extend} once there was one.
     */
    private volatile long renewalIntervalNanos;
    /**
     * The deadline the engine keeps for this lease on top of the driver's ({@link Deadlines#NEVER}
     * for none): a session driver's lease that does not renew, or a client-kept extension.
     */
    private volatile long ownDeadline = Deadlines.NEVER;

    private final Instant acquiredAtWall = Instant.now();
    private int renewals; // touched only by the watchdog thread
    private int failedRenewalsInARow; // touched only by the watchdog thread
    private final AtomicReference<State> state = new AtomicReference<>(State.HELD);
    private final AtomicBoolean serverReleased = new AtomicBoolean();
    /** Completes when the server release (whoever sent it) has its answer. */
    private final CompletableFuture<Void> serverReleaseDone = new CompletableFuture<>();

    private final CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
    private volatile LeaseLostException lossCause;
    private volatile LeaseTimer.Task renewTask;
    /** Counts renewal schedules; a renewal task runs only if it is the latest (one chain per lease). */
    private final AtomicLong renewalSchedules = new AtomicLong();
    /** Where the latest renewal task is due ({@link Deadlines#NEVER}: none). */
    private volatile long nextRenewalAt = Deadlines.NEVER;
    /** The validity check is armed when the first renewal comes due (it is due before the deadline). */
    private volatile boolean expiryCheckDeferred;

    private volatile LeaseTimer.Task expiryTask;
    private volatile LeaseTimer.Task capTask;
    private volatile LeaseTimer.Task renewalCapTask;

    EngineLease(LockEngine engine, String name, HeldLock held, AcquireContext ctx, long acquiredAt) {
        this.engine = engine;
        this.name = name;
        this.held = held;
        this.ctx = ctx;
        this.ticker = ctx.ticker();
        this.acquiredAt = acquiredAt;
        var options = ctx.options();
        this.renewalIntervalNanos = Math.max(1, (long) (options.leaseTime().toNanos() * options.renewalFraction()));
        if (engine.renewalMode() == RenewalMode.SESSION && !options.autoRenew()) {
            // the session would keep it forever: the lease ends at its own lease time
            ownDeadline = ctx.validUntil(acquiredAt);
        }
    }

    /** The validity deadline: the driver's, or the engine's own if that comes first. */
    long deadline() {
        long driver = held.validUntilNanos();
        long own = ownDeadline;
        if (own == Deadlines.NEVER) {
            return driver;
        }
        if (driver == Deadlines.NEVER) {
            return own;
        }
        return own - driver < 0 ? own : driver;
    }

    HeldLock held() {
        return held;
    }

    /**
     * Arms renewal, the validity check and the hold cap. Called once, when registered.
     *
     * <p>Most leases are released long before their first renewal is due, so the common case
     * costs one {@link LeaseTimer#schedule} on the timer thread (no I/O there): when the first
     * renewal is due, that task arms the validity check and adds the lease to the renewal batch of
     * its tick ({@link RenewalBatches}), which the watchdog thread renews. Until then no validity
     * check is needed, because the first renewal is due before the validity deadline (checked here;
     * otherwise the check is scheduled at once), and a driver that moves the deadline earlier calls
     * {@link #scheduleExpiryCheck()} itself.
     */
    void start() {
        var options = ctx.options();
        boolean renews = renews();
        if (renews) {
            long at = engine.renewals().dueAt(ticker.read(), renewalIntervalNanos, true);
            long deadline = deadline();
            expiryCheckDeferred = at != Deadlines.NEVER && deadline != Deadlines.NEVER && at - deadline < 0;
            scheduleRenewalAt(at);
        }
        options.maxHoldTime().ifPresent(cap -> {
            long at = Deadlines.after(acquiredAt, cap);
            if (at != Deadlines.NEVER) {
                capTask = engine.timer().schedule(at, this::capReached);
            }
        });
        if (engine.renewalMode() == RenewalMode.SESSION && options.maxRenewals().isPresent()) {
            // the session renews without the engine: end the lease where the watchdog would have
            // refused renewal number maxRenewals + 1
            int max = options.maxRenewals().getAsInt();
            long interval = Math.max(1, (long) (options.leaseTime().toNanos() * options.renewalFraction()));
            long at;
            try {
                at = Deadlines.after(acquiredAt, Math.multiplyExact(interval, max + 1L));
            } catch (ArithmeticException overflow) {
                at = Deadlines.NEVER;
            }
            if (at != Deadlines.NEVER) {
                renewalCapTask = engine.timer().schedule(at, () -> renewalCapReached(max));
            }
        }
        if (!expiryCheckDeferred) {
            scheduleExpiryCheck();
        }
    }

    /** Whether the engine renews this lease (a watchdog driver, {@code autoRenew}). */
    private boolean renews() {
        return engine.renewalMode() == RenewalMode.WATCHDOG && ctx.options().autoRenew();
    }

    /**
     * The next renewal, {@code renewalInterval} from now (fixed delay: counted from the end of the
     * previous one) rounded down to the renewal grid ({@link RenewalBatches#dueAt}).
     */
    private void scheduleRenewal() {
        scheduleRenewalAt(engine.renewals().dueAt(ticker.read(), renewalIntervalNanos, false));
    }

    /** A renewal task at {@code at} on the timer thread, replacing any earlier one. */
    private void scheduleRenewalAt(long at) {
        if (at == Deadlines.NEVER || !renewing()) {
            return;
        }
        long schedule = renewalSchedules.incrementAndGet();
        nextRenewalAt = at;
        renewTask = engine.timer().schedule(at, () -> renewalDue(schedule));
        if (!renewing()) {
            renewTask.cancel();
        }
    }

    /** On the timer thread, when a renewal is due: arm the validity check (first time), join the batch. */
    private void renewalDue(long schedule) {
        if (schedule != renewalSchedules.get() || !renewing()) {
            return; // replaced by a later schedule (an extension), or ended
        }
        if (expiryCheckDeferred) {
            expiryCheckDeferred = false;
            scheduleExpiryCheck();
        }
        engine.renewals().add(this);
    }

    /** Whether the watchdog keeps this lease alive: held, or lingering after releaseAfter. */
    private boolean renewing() {
        State s = state.get();
        return s == State.HELD || s == State.LINGERING;
    }

    void scheduleExpiryCheck() {
        if (state.get() != State.HELD) {
            return;
        }
        long deadline = deadline();
        if (deadline == Deadlines.NEVER) {
            return;
        }
        LeaseTimer.Task previous = expiryTask;
        // +1 µs so that the check runs strictly after the deadline
        expiryTask = engine.timer().schedule(Deadlines.after(deadline, 1_000), this::checkExpiry);
        if (previous != null) {
            previous.cancel();
        }
    }

    private void checkExpiry() {
        if (state.get() != State.HELD) {
            return;
        }
        if (Deadlines.passed(ticker, deadline())) {
            expired(new LeaseLostException(
                    ctx.options().autoRenew()
                            ? "validity deadline passed without a successful renewal"
                            : "validity deadline passed: the lease time ran out (this lease is not renewed)",
                    name,
                    engine.backend()));
        } else {
            scheduleExpiryCheck();
        }
    }

    /**
     * On the watchdog thread, before its batch is renewed: whether this lease is to be renewed now.
     * A lease past its renewal cap or its validity deadline ends here instead.
     */
    boolean beforeRenewal() {
        State s = state.get();
        if (s == State.LINGERING) {
            return true;
        }
        if (s != State.HELD) {
            return false;
        }
        OptionalInt maxRenewals = ctx.options().maxRenewals();
        if (maxRenewals.isPresent() && renewals >= maxRenewals.getAsInt()) {
            renewalCapReached(maxRenewals.getAsInt());
            return false;
        }
        if (Deadlines.passed(ticker, deadline())) {
            expired(new LeaseLostException("validity deadline passed before renewal", name, engine.backend()));
            return false;
        }
        return true;
    }

    /** On the watchdog thread, with what the batch found for this lease; schedules the next renewal. */
    void afterRenewal(RenewalOutcome outcome) {
        try {
            if (state.get() == State.LINGERING) {
                lingeringRenewed(outcome);
            } else {
                renewed(outcome);
            }
        } finally {
            if (renewing()) {
                scheduleRenewal();
            }
        }
    }

    /** Keeps a lease alive while its delayed release is pending; nobody is told of a failure. */
    private void lingeringRenewed(RenewalOutcome outcome) {
        if (outcome.gone() || (outcome.failure().isPresent() && Deadlines.passed(ticker, deadline()))) {
            endLingering(false);
        }
    }

    private void renewed(RenewalOutcome outcome) {
        if (state.get() != State.HELD) {
            return;
        }
        if (outcome.renewed()) {
            renewals++;
            failedRenewalsInARow = 0;
            if (engine.observed()) {
                engine.notify(o -> o.renewed(engine.backend(), name));
            }
            if (LockEngine.log.isTraceEnabled()) {
                LogEvents.log(
                        LockEngine.log,
                        Level.TRACE,
                        LogEvents.RENEWED,
                        null,
                        LogEvents.LOCK,
                        name,
                        LogEvents.BACKEND,
                        engine.backend(),
                        LogEvents.TOKEN,
                        held.fencingToken());
            }
            scheduleExpiryCheck();
            return;
        }
        if (outcome.gone()) {
            markLost(new LeaseLostException(
                    "renewal found the lock gone or owned by another client", name, engine.backend()));
            return;
        }
        RuntimeException e = outcome.failure().orElseThrow();
        engine.notify(o -> o.renewalFailed(engine.backend(), name, e));
        // one warning per streak of failures: an outage does not flood the log
        LogEvents.log(
                LockEngine.log,
                failedRenewalsInARow++ == 0 ? Level.WARN : Level.DEBUG,
                LogEvents.RENEWAL_FAILED,
                e,
                LogEvents.LOCK,
                name,
                LogEvents.BACKEND,
                engine.backend(),
                LogEvents.TOKEN,
                held.fencingToken(),
                LogEvents.ERROR,
                LogEvents.errorName(e));
        if (Deadlines.passed(ticker, deadline())) {
            expired(new LeaseLostException(
                    "renewal failed and the validity deadline passed", name, engine.backend(), e));
        }
    }

    private void capReached() {
        endAtCap(new LeaseLostException(
                "maximum hold time (" + ctx.options().maxHoldTime().orElseThrow() + ") reached",
                name,
                engine.backend()));
    }

    private void renewalCapReached(int maxRenewals) {
        endAtCap(new LeaseLostException(
                "maximum number of renewals (" + maxRenewals + ") reached", name, engine.backend()));
    }

    /** A cap ended the lease: report it lost, then delete it on the server (owner-only). */
    private void endAtCap(LeaseLostException cause) {
        if (markLost(cause, Level.INFO)) {
            engine.watchdog().execute(this::serverReleaseQuietly); // after close(), close() releases it
        }
    }

    /**
     * The lease ran out: report it lost and, where the server does not keep lease times itself
     * (the lock would stay taken as long as the session or connection lives), free it on the
     * server at once (owner-only).
     */
    private void expired(LeaseLostException cause) {
        if (markLost(cause) && !engine.serverKeepsLeaseTimes()) {
            engine.watchdog().execute(this::serverReleaseQuietly);
        }
    }

    private void serverReleaseQuietly() {
        try {
            serverRelease();
        } catch (RuntimeException ignored) {
            // the lock expires on the server
        }
    }

    /** Marks the lease lost (logged at WARN); returns whether this call did it. */
    boolean markLost(LeaseLostException cause) {
        return markLost(cause, Level.WARN);
    }

    /** Marks the lease lost, logging it at {@code level}; returns whether this call did it. */
    boolean markLost(LeaseLostException cause, Level level) {
        if (!state.compareAndSet(State.HELD, State.LOST)) {
            return false;
        }
        lossCause = cause;
        cancelTasks(false);
        logLost(cause, level);
        // observers first, so metrics are up to date when code waiting on lost() runs
        if (engine.observed()) {
            engine.notify(o -> o.lost(engine.backend(), name, cause));
        }
        lost.complete(cause);
        return true;
    }

    private void cancelTasks(boolean includingCap) {
        LeaseTimer.Task t = renewTask;
        if (t != null) {
            t.cancel();
        }
        t = expiryTask;
        if (t != null) {
            t.cancel();
        }
        t = capTask;
        if (t != null && includingCap) {
            t.cancel();
        }
        t = renewalCapTask;
        if (t != null && includingCap) {
            t.cancel();
        }
    }

    /**
     * Releases the lock on the server once (owner-only). A caller that finds the release already
     * sent (by the engine, when the lease ran out or hit a cap) waits for its answer, at most {@link
     * #RELEASE_IN_FLIGHT_WAIT}, so that the lock is free on the server when {@code release()}
     * returns.
     */
    private boolean serverRelease() {
        if (!serverReleased.compareAndSet(false, true)) {
            try {
                serverReleaseDone.get(RELEASE_IN_FLIGHT_WAIT.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // the engine's release failed or is slow: the lock expires on the server
            }
            return false;
        }
        try {
            return held.release();
        } finally {
            serverReleaseDone.complete(null);
        }
    }

    /** How long a release waits for a server release the engine already sent. */
    private static final Duration RELEASE_IN_FLIGHT_WAIT = Duration.ofSeconds(5);

    @Override
    public String lockName() {
        return name;
    }

    @Override
    public Instant acquiredAt() {
        return acquiredAtWall;
    }

    @Override
    public OptionalLong fencingToken() {
        return held.fencingToken();
    }

    @Override
    public boolean isValid() {
        return state.get() == State.HELD && !Deadlines.passed(ticker, deadline());
    }

    @Override
    public Duration remainingValidity() {
        if (state.get() != State.HELD) {
            return Duration.ZERO;
        }
        long left = Deadlines.remaining(ticker, deadline());
        return left == Long.MAX_VALUE ? Duration.ofSeconds(Long.MAX_VALUE) : Duration.ofNanos(left);
    }

    @Override
    public void checkValid() {
        State s = state.get();
        if (s == State.HELD) {
            if (!Deadlines.passed(ticker, deadline())) {
                return;
            }
            expired(new LeaseLostException("validity deadline passed", name, engine.backend()));
            s = state.get();
        }
        LeaseLostException cause = lossCause;
        if (cause != null) {
            throw new LeaseLostException(
                    "lease is no longer valid: " + rawMessage(cause), name, engine.backend(), cause);
        }
        throw new LeaseLostException("lease was released", name, engine.backend());
    }

    private static String rawMessage(LeaseLostException e) {
        String m = e.getMessage();
        int i = m.lastIndexOf(" [");
        return i > 0 ? m.substring(0, i) : m;
    }

    @Override
    public CompletionStage<LeaseLostException> lost() {
        return lost.minimalCompletionStage();
    }

    @Override
    public void extend(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime must not be null");
        // the bounds and the margin rule of LockOptions, with its message naming leaseTime
        ctx.options().mutate().leaseTime(leaseTime).build();
        checkValid();
        long sentAt = ticker.read();
        boolean extended;
        boolean onServer = true;
        try {
            extended = held.extend(leaseTime);
        } catch (UnsupportedOperationException clientKept) {
            if (engine.serverKeepsLeaseTimes()) {
                throw clientKept;
            }
            // the lock lives as long as the session or connection: the engine keeps the new time
            extended = true;
            onServer = false;
        }
        if (!extended) {
            LeaseLostException cause = new LeaseLostException(
                    "extension found the lock gone or owned by another client", name, engine.backend());
            markLost(cause);
            throw cause;
        }
        if (state.get() != State.HELD) {
            checkValid(); // lost or released while the request was in flight
        }
        if (!onServer) {
            if (engine.renewalMode() == RenewalMode.SESSION || !ctx.options().autoRenew()) {
                ownDeadline = ctx.validUntil(sentAt, leaseTime);
            }
        } else {
            if (ownDeadline != Deadlines.NEVER) {
                // the driver's deadline moved with the server's time: the engine's own does too
                ownDeadline = ctx.validUntil(sentAt, leaseTime);
            }
            if (renews()) {
                followRenewalInterval(leaseTime);
            }
        }
        scheduleExpiryCheck();
    }

    /**
     * After an extension to {@code leaseTime}, later renewals come every {@code leaseTime *
     * renewalFraction}: the next one moves earlier if it was planned later than that.
     */
    private void followRenewalInterval(Duration leaseTime) {
        long interval = Math.max(1, (long) (leaseTime.toNanos() * ctx.options().renewalFraction()));
        renewalIntervalNanos = interval;
        long at = engine.renewals().dueAt(ticker.read(), interval, false);
        long planned = nextRenewalAt;
        if (at != Deadlines.NEVER && (planned == Deadlines.NEVER || planned - at > 0)) {
            scheduleRenewalAt(at);
        }
    }

    @Override
    public boolean releaseAfter(Duration delay) {
        Objects.requireNonNull(delay, "delay must not be null");
        if (delay.isZero() || delay.isNegative()) {
            return release();
        }
        if (engine.serverKeepsLeaseTimes()) {
            return releaseWithServerDelay(delay);
        }
        return releaseWithClientDelay(delay);
    }

    /** The server lets the lock expire after {@code delay}: one owner-checked request. */
    private boolean releaseWithServerDelay(Duration delay) {
        boolean wasValid;
        if (state.compareAndSet(State.HELD, State.RELEASED)) {
            wasValid = !Deadlines.passed(ticker, deadline());
            lost.completeExceptionally(new Released());
        } else if (state.compareAndSet(State.LOST, State.RELEASED)) {
            wasValid = false;
        } else {
            return false;
        }
        cancelTasks(true);
        engine.forget(this);
        long heldFor = ticker.read() - acquiredAt;
        boolean owned = false;
        try {
            if (serverReleased.compareAndSet(false, true)) {
                try {
                    // a lost lease is not extended: it may belong to someone else by now
                    owned = wasValid ? held.releaseAfter(delay) : held.release();
                } finally {
                    serverReleaseDone.complete(null);
                }
            }
        } finally {
            if (engine.observed()) {
                boolean result = wasValid && owned;
                engine.notify(o -> o.released(engine.backend(), name, Duration.ofNanos(heldFor), result));
            }
        }
        return wasValid && owned;
    }

    /**
     * The engine keeps the lock (renewing it as it did) and releases it when {@code delay} has
     * passed; until then the lease is invalid for the caller.
     */
    private boolean releaseWithClientDelay(Duration delay) {
        if (!state.compareAndSet(State.HELD, State.LINGERING)) {
            return release(); // lost or already released: nothing to keep
        }
        if (Deadlines.passed(ticker, deadline())) {
            state.set(State.HELD);
            return release();
        }
        lost.completeExceptionally(new Released());
        engine.forget(this);
        if (!engine.linger(this)) {
            endLingering(true);
            return true;
        }
        long sentAt = ticker.read();
        // The lock stays held by renewing it through the delay (a lease that did not renew starts
        // now), not by moving a server-side timeout to the delay: the server keeps only the lease
        // time, so a holder that crashes or freezes during the delay frees the lock as after any
        // crash, which is what client-kept lease times promise.
        if (engine.renewalMode() == RenewalMode.WATCHDOG && !ctx.options().autoRenew()) {
            scheduleRenewal();
        }
        ownDeadline = Deadlines.NEVER;
        LeaseTimer.Task t = expiryTask;
        if (t != null) {
            t.cancel();
        }
        long at = Deadlines.after(sentAt, delay);
        engine.timer().schedule(at, () -> engine.watchdog().execute(() -> endLingering(true)));
        if (engine.observed()) {
            long heldFor = ticker.read() - acquiredAt;
            engine.notify(o -> o.released(engine.backend(), name, Duration.ofNanos(heldFor), true));
        }
        return true;
    }

    /** The delayed release is due (or the engine is closing): free the lock now, owner-only. */
    private void endLingering(boolean releaseOnServer) {
        if (!state.compareAndSet(State.LINGERING, State.RELEASED)) {
            return;
        }
        cancelTasks(true);
        engine.stopLingering(this);
        if (releaseOnServer) {
            serverReleaseQuietly();
        }
    }

    @Override
    public boolean release() {
        boolean wasValid;
        if (state.compareAndSet(State.HELD, State.RELEASED)) {
            wasValid = !Deadlines.passed(ticker, deadline());
            if (wasValid) {
                lost.completeExceptionally(new Released());
            } else {
                LeaseLostException cause =
                        new LeaseLostException("validity deadline passed before release", name, engine.backend());
                lossCause = cause;
                logLost(cause, Level.WARN);
                if (engine.observed()) {
                    engine.notify(o -> o.lost(engine.backend(), name, cause));
                }
                lost.complete(cause);
            }
        } else if (state.compareAndSet(State.LOST, State.RELEASED)) {
            wasValid = false;
        } else {
            return false;
        }
        cancelTasks(true);
        engine.forget(this);
        long heldFor = ticker.read() - acquiredAt;
        boolean owned;
        try {
            // Owner-only on the server: a lost lease's delete cannot touch the next holder's lock,
            // and it frees the lock early when the loss was only on our side.
            owned = serverRelease();
        } catch (RuntimeException e) {
            if (engine.observed()) {
                engine.notify(o -> o.released(engine.backend(), name, Duration.ofNanos(heldFor), false));
            }
            throw e;
        }
        boolean result = wasValid && owned;
        if (engine.observed()) {
            engine.notify(o -> o.released(engine.backend(), name, Duration.ofNanos(heldFor), result));
        }
        if (LockEngine.log.isDebugEnabled()) {
            LogEvents.log(
                    LockEngine.log,
                    Level.DEBUG,
                    LogEvents.RELEASED,
                    null,
                    LogEvents.LOCK,
                    name,
                    LogEvents.BACKEND,
                    engine.backend(),
                    LogEvents.TOKEN,
                    held.fencingToken(),
                    LogEvents.HELD_MS,
                    TimeUnit.NANOSECONDS.toMillis(heldFor),
                    LogEvents.WAS_VALID,
                    result);
        }
        return result;
    }

    /** Completes {@link #lost()} on release: a plain cancellation, without the cost of a stack trace. */
    private static final class Released extends CancellationException {
        private static final long serialVersionUID = 1L;

        Released() {
            super("lease released");
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    private void logLost(LeaseLostException cause, Level level) {
        LogEvents.log(
                LockEngine.log,
                level,
                LogEvents.LOST,
                null,
                LogEvents.LOCK,
                name,
                LogEvents.BACKEND,
                engine.backend(),
                LogEvents.TOKEN,
                held.fencingToken(),
                LogEvents.REASON,
                rawMessage(cause));
    }

    /** Release during provider close: reports the lease lost to anyone listening, then releases. */
    void releaseOnClose() {
        if (state.get() == State.LINGERING) {
            endLingering(true);
            return;
        }
        if (state.get() == State.HELD) {
            markLost(
                    new LeaseLostException("provider was closed while the lease was held", name, engine.backend()),
                    Level.DEBUG);
        }
        release();
    }

    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return "Lease{lock='" + name + "', backend=" + engine.backend() + ", token=" + held.fencingToken() + ", state="
                + state.get() + '}';
    }
}
