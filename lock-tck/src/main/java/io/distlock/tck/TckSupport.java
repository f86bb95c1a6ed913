package io.distlock.tck;

import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import io.distlock.Capabilities;
import io.distlock.Lease;
import io.distlock.LockObserver;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.tck.history.HistoryChecker;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;

/**
 * What every rule group runs on: the fixture, the clients a rule opens (closed after the rule),
 * lock names unique to the run, the timing, background threads (interrupted and joined after the
 * rule), fixture hooks that skip the rule with the reason when unsupported, and the history checker
 * that fits the declared fencing.
 *
 * <p>One instance backs one {@link LockProviderTck}; the groups reach it through {@link
 * RuleGroup#support()}.
 */
public final class TckSupport {
    /** How long a waiter is given where the rule expects it to finish much sooner. */
    static final Duration LONG_WAIT = Duration.ofSeconds(30);
    /** Poll interval for conditions a rule awaits. */
    static final Duration POLL = Duration.ofMillis(20);
    /** How often {@link #holdsThroughout} checks its condition. */
    private static final Duration CHECK_EVERY = Duration.ofMillis(50);
    /**
     * How late a reply-delayed client's replies arrive (TCK-1.8, TCK-2.5): far above a loopback round
     * trip and the default safety margin of a short lease, far below the 30 s default lease.
     */
    static final Duration REPLY_DELAY = Duration.ofMillis(300);

    private final String run =
            HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    private final AtomicInteger names = new AtomicInteger();
    private final List<LockProvider> clients = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final Supplier<TckTiming> timing;
    private TckFixture fixture;
    private Capabilities declared;

    TckSupport(Supplier<TckTiming> timing) {
        this.timing = timing;
    }

    // ------------------------------------------------------------------------------------------
    // lifecycle (driven by LockProviderTck)
    // ------------------------------------------------------------------------------------------

    void openFixture(TckFixture opened) {
        fixture = Objects.requireNonNull(opened, "createFixture() returned null");
    }

    /** Interrupts and joins the rule's background threads, then closes every client it opened. */
    void closeClients() throws InterruptedException {
        for (Thread t : threads) {
            t.interrupt();
        }
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(10));
        }
        threads.clear();
        RuntimeException failure = null;
        for (LockProvider c : clients) {
            try {
                c.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        clients.clear();
        if (failure != null) {
            throw failure;
        }
    }

    void closeFixture() {
        if (fixture != null) {
            fixture.close();
        }
    }

    // ------------------------------------------------------------------------------------------
    // fixture, clients, names, timing
    // ------------------------------------------------------------------------------------------

    /** The fixture (open between the first and the last rule); {@code null} before it is opened. */
    public TckFixture fixture() {
        return fixture;
    }

    /** A client with default options (30 s lease, renewed); closed after the rule. */
    public LockProvider client() {
        return open(LockOptions.defaults());
    }

    /** A client with {@link TckTiming#shortLease()} leases, renewed; closed after the rule. */
    public LockProvider shortClient() {
        return open(LockOptions.builder().leaseTime(shortLease()).build());
    }

    /** A client with {@link TckTiming#shortLease()} leases and {@code autoRenew=false}. */
    public LockProvider noRenewClient() {
        return open(
                LockOptions.builder().leaseTime(shortLease()).autoRenew(false).build());
    }

    /** Opens a client through the fixture; it is closed after the rule. */
    public LockProvider open(LockOptions options) {
        return closeAfterRule(Objects.requireNonNull(fixture.newClient(options), "fixture.newClient returned null"));
    }

    /**
     * A client whose replies arrive {@code delay} late ({@link TckFixture#newClientWithReplyDelay});
     * closed after the rule; skips the rule if the fixture does not offer it.
     */
    LockProvider replyDelayClient(LockOptions options, Duration delay) {
        return closeAfterRule(Objects.requireNonNull(
                hookResult("newClientWithReplyDelay", () -> fixture.newClientWithReplyDelay(options, delay)),
                "fixture.newClientWithReplyDelay returned null"));
    }

    /**
     * A client whose replies arrive {@code delay} late if the fixture offers {@link
     * TckFixture#newClientWithReplyDelay}, else an ordinary one; closed after the rule.
     */
    LockProvider replyDelayClientIfOffered(LockOptions options, Duration delay) {
        try {
            return closeAfterRule(Objects.requireNonNull(
                    fixture.newClientWithReplyDelay(options, delay), "fixture.newClientWithReplyDelay returned null"));
        } catch (UnsupportedHookException e) {
            return open(options);
        }
    }

    /** Closes {@code client} after the rule (with the clients the rule opened); returns it. */
    LockProvider closeAfterRule(LockProvider client) {
        clients.add(client);
        return client;
    }

    /** A lock name unique to this run and rule. */
    public String name(String tag) {
        return "tck-" + tag + "-" + run + "-" + names.incrementAndGet();
    }

    /** The timing the rules use (the TCK class's {@link LockProviderTck#timing()}). */
    public TckTiming timing() {
        return timing.get();
    }

    Duration shortLease() {
        return timing().shortLease();
    }

    Duration slack() {
        return timing().slack();
    }

    /** How long a request may take to fail while the server is down. */
    Duration unavailableBound() {
        return slack().multipliedBy(10);
    }

    /** The capabilities the backend declares (read once, from a client with default options). */
    Capabilities caps() {
        if (declared == null) {
            declared = client().capabilities();
        }
        return declared;
    }

    /** The history checker for the declared fencing (across locks when globally monotonic). */
    HistoryChecker checker() {
        return caps().fencing() == Capabilities.Fencing.GLOBALLY_MONOTONIC
                ? HistoryChecker.global()
                : HistoryChecker.perLock();
    }

    /** {@code lease} as the fixture describes it for failure messages. */
    String describe(Lease lease) {
        try {
            return fixture.describe(lease);
        } catch (RuntimeException e) {
            return String.valueOf(lease);
        }
    }

    // ------------------------------------------------------------------------------------------
    // skipping with a reason
    // ------------------------------------------------------------------------------------------

    /** Skips the rule, with the reason in the report, unless the backend declares what it needs. */
    static void requireCapability(boolean condition, String reason) {
        if (!condition) {
            Assumptions.abort("capability: " + reason);
        }
    }

    /**
     * Skips the rule because the fixture does not implement a hook, with the hook and the
     * fixture's reason in the report. Never returns normally; declared to return the exception so
     * that callers can write {@code throw skip(e)}.
     */
    RuntimeException skip(UnsupportedHookException e) {
        String reason = e.reason().map(r -> ": " + r).orElse("");
        Assumptions.abort("fixture hook '" + e.hook() + "' is not supported" + reason);
        return e;
    }

    /** Calls a fixture hook; skips the rule, with the reason, if the fixture does not implement it. */
    void hook(String name, Runnable call) {
        hookResult(name, () -> {
            call.run();
            return null;
        });
    }

    /** Calls a fixture hook and returns its result; skips the rule if the hook is unsupported. */
    <T> T hookResult(String name, Callable<T> call) {
        try {
            return call.call();
        } catch (UnsupportedHookException e) {
            throw skip(e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("fixture hook '" + name + "' failed", e);
        }
    }

    // ------------------------------------------------------------------------------------------
    // lock helpers
    // ------------------------------------------------------------------------------------------

    /** The lease in {@code lease}; fails the rule with {@code what} if it is empty. */
    static Lease present(Optional<Lease> lease, String what) {
        if (lease.isEmpty()) {
            fail(what + ": expected a lease but got Optional.empty()");
        }
        return lease.get();
    }

    /** Whether {@code client}'s single try on {@code name} found the lock held (releasing if not). */
    static boolean tryOnce(LockProvider client, String name) {
        Optional<Lease> l = client.lock(name).tryAcquire();
        l.ifPresent(Lease::release);
        return l.isEmpty();
    }

    /**
     * Makes the server forget {@code holder}'s hold of {@code name}: through {@code
     * fixture.expireLease} when supported, otherwise by letting the short, unrenewed lease run out
     * (skipping the rule when the backend renews regardless).
     */
    void loseOnServer(String name, LockProvider holder) {
        try {
            fixture.expireLease(name);
        } catch (UnsupportedHookException e) {
            requireCapability(
                    !holder.capabilities().automaticRenewal(),
                    "needs fixture hook 'expireLease' (leases stay alive even with autoRenew=false)");
        }
    }

    /** Tries until {@code client} acquires {@code name}, for at most a short lease and twice the slack. */
    Lease acquireEventually(LockProvider client, String name, String alias) {
        AtomicReference<Lease> got = new AtomicReference<>();
        await(alias)
                .atMost(shortLease().plus(slack().multipliedBy(2)))
                .pollInterval(POLL)
                .until(() -> {
                    client.lock(name).tryAcquire().ifPresent(got::set);
                    return got.get() != null;
                });
        return got.get();
    }

    // ------------------------------------------------------------------------------------------
    // time and threads
    // ------------------------------------------------------------------------------------------

    static Duration since(long t0) {
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    /**
     * Checks {@code condition} every {@link #CHECK_EVERY} until {@code window} has passed since
     * {@code t0} (the last check starts at or after that point) and fails at the first check that finds it
     * false. A slow check — a loaded machine, a distant server — means fewer checks, never a
     * failure: a rule that uses this states that the condition holds throughout the window, not how
     * fast the backend answers.
     */
    static void holdsThroughout(String what, long t0, Duration window, BooleanSupplier condition) {
        long end = t0 + window.toNanos();
        for (int check = 1; ; check++) {
            long at = System.nanoTime();
            if (!condition.getAsBoolean()) {
                fail(what + ": false at check " + check + ", " + TimeUnit.NANOSECONDS.toMillis(at - t0) + " ms into "
                        + window);
            }
            if (at - end >= 0) {
                return;
            }
            LockSupport.parkNanos(Math.min(CHECK_EVERY.toNanos(), end - System.nanoTime()));
        }
    }

    /** The live threads whose names start with {@code distlock-}. */
    static Set<Thread> distlockThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("distlock-") && t.isAlive())
                .collect(Collectors.toSet());
    }

    /** An observer that counts the renewals it is told of in {@code renewals}. */
    static LockObserver countingRenewals(AtomicInteger renewals) {
        return new LockObserver() {
            @Override
            public void renewed(String backend, String lockName) {
                renewals.incrementAndGet();
            }
        };
    }

    /** Every live thread of the JVM. */
    static Set<Thread> liveThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .collect(Collectors.toSet());
    }

    /**
     * Waits until {@code b}'s thread has been parked (waiting, with or without a timeout) for {@code
     * steady} without a break seen, so that its attempt has reached the server and it now waits for
     * a change; fails if that does not happen within the slack plus {@code steady}.
     */
    void awaitParked(Background<?> b, Duration steady) {
        await("the waiter on thread " + b.thread().getName() + " waits")
                .atMost(slack().plus(steady).plus(steady))
                .pollInterval(Duration.ofMillis(5))
                .during(steady)
                .until(() -> {
                    Thread.State s = b.thread().getState();
                    return (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING)
                            && !b.result().isDone();
                });
    }

    /** Runs {@code task} on its own daemon thread named {@code tck-<what>}, joined after the rule. */
    <T> Background<T> background(String what, Callable<T> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = new Thread(
                () -> {
                    try {
                        result.complete(task.call());
                    } catch (Throwable e) {
                        result.completeExceptionally(e);
                    }
                },
                "tck-" + what);
        t.setDaemon(true);
        threads.add(t);
        t.start();
        return new Background<>(t, result);
    }

    /** Waits until {@code b}'s thread is parked, or 300 ms passed (it may block in socket I/O). */
    void awaitWaiting(Background<?> b) {
        long start = System.nanoTime();
        await().atMost(slack().multipliedBy(2))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> {
                    Thread.State s = b.thread().getState();
                    return s == Thread.State.WAITING
                            || s == Thread.State.TIMED_WAITING
                            || b.result().isDone()
                            || System.nanoTime() - start
                                    > Duration.ofMillis(300).toNanos();
                });
    }
}
