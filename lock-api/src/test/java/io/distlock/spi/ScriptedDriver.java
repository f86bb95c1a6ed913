package io.distlock.spi;

import io.distlock.Capabilities;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * A test driver whose tries answer what {@link #answer} says; it counts tries, abandons and releases,
 * and can fail an abandon, a release, an extension or its close. Its held locks renew and extend
 * (unless {@link #extendAnswer} says otherwise) and keep their first validity deadline (unless {@link
 * #deadline} gives one).
 */
final class ScriptedDriver implements LockDriver {
    final AtomicReference<Function<AcquireContext, Optional<HeldLock>>> answer = new AtomicReference<>();
    final AtomicInteger tries = new AtomicInteger();
    final AtomicInteger abandoned = new AtomicInteger();
    final AtomicInteger released = new AtomicInteger();
    volatile RuntimeException abandonFailure;
    volatile RuntimeException releaseFailure;
    volatile RuntimeException closeFailure;
    /** Runs at the start of every renewal and every release of a held lock (null: nothing). */
    volatile Runnable onRenewOrRelease;

    volatile RenewalMode renewalMode = RenewalMode.WATCHDOG;
    /** The held locks' validity deadline; null: {@code ctx.validUntil} of the acquisition. */
    volatile java.util.function.LongSupplier deadline;
    /** What an extension answers (given the attempt's context); null: it extends. */
    volatile Function<AcquireContext, Boolean> extendAnswer;

    ScriptedDriver(Function<AcquireContext, Optional<HeldLock>> answer) {
        this.answer.set(answer);
    }

    HeldLock held(AcquireContext ctx) {
        long validUntil = ctx.validUntil(ctx.ticker().read());
        return new HeldLock() {
            @Override
            public OptionalLong fencingToken() {
                return OptionalLong.empty();
            }

            @Override
            public long validUntilNanos() {
                java.util.function.LongSupplier d = deadline;
                return d == null ? validUntil : d.getAsLong();
            }

            @Override
            public boolean renew() {
                Runnable r = onRenewOrRelease;
                if (r != null) {
                    r.run();
                }
                return true;
            }

            @Override
            public boolean extend(Duration leaseTime) {
                Function<AcquireContext, Boolean> a = extendAnswer;
                return a == null || a.apply(ctx);
            }

            @Override
            public boolean release() {
                Runnable r = onRenewOrRelease;
                if (r != null) {
                    r.run();
                }
                released.incrementAndGet();
                if (releaseFailure != null) {
                    throw releaseFailure;
                }
                return true;
            }
        };
    }

    @Override
    public String backend() {
        return "scripted";
    }

    @Override
    public Capabilities capabilities() {
        return Capabilities.builder().automaticRenewal(true).build();
    }

    @Override
    public RenewalMode renewalMode() {
        return renewalMode;
    }

    @Override
    public Contender contender(AcquireContext ctx) {
        return new Contender() {
            @Override
            public Optional<HeldLock> tryAcquire() {
                tries.incrementAndGet();
                return answer.get().apply(ctx);
            }

            @Override
            public void awaitChange(long deadlineNanos) {}

            @Override
            public void abandon() {
                abandoned.incrementAndGet();
                if (abandonFailure != null) {
                    throw abandonFailure;
                }
            }
        };
    }

    @Override
    public void close() {
        if (closeFailure != null) {
            throw closeFailure;
        }
    }
}
