package io.distlock.memory;

import io.distlock.Capabilities;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.Deadlines;
import io.distlock.spi.HeldLock;
import io.distlock.spi.LockDriver;
import io.distlock.spi.RenewalMode;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A driver on the in-JVM server whose locks' times the engine keeps: {@code SESSION} (nothing
 * renewed lease by lease; the server keeps the lock a day; the driver's deadline is {@code
 * driverValidityNanos} after the request, or never) or {@code WATCHDOG} (renewed with the lease
 * time, the server's time to live counted like the in-JVM driver's). Neither extends or delays a
 * release on the server.
 */
final class EngineKeptDriver implements LockDriver {
    private final MemoryLockServer server;
    private final RenewalMode mode;
    private final long driverValidityNanos;
    private volatile boolean closed;
    /** Renewal requests sent so far (answered or failed). */
    final java.util.concurrent.atomic.AtomicInteger renewCalls = new java.util.concurrent.atomic.AtomicInteger();

    EngineKeptDriver(MemoryLockServer server, RenewalMode mode, long driverValidityNanos) {
        this.server = server;
        this.mode = mode;
        this.driverValidityNanos = driverValidityNanos;
    }

    @Override
    public String backend() {
        return "engine-kept";
    }

    @Override
    public Capabilities capabilities() {
        return Capabilities.builder()
                .automaticRenewal(true)
                .wakeUp(Capabilities.WakeUp.NOTIFICATION)
                .failover(Capabilities.Failover.NOT_APPLICABLE)
                .leaseTiming(Capabilities.LeaseTiming.CLIENT)
                .build();
    }

    @Override
    public RenewalMode renewalMode() {
        return mode;
    }

    @Override
    public Contender contender(AcquireContext ctx) {
        String owner = UUID.randomUUID().toString();
        long ttl = mode == RenewalMode.SESSION
                ? TimeUnit.DAYS.toNanos(1)
                : ctx.leaseTime().toNanos();
        return new Contender() {
            @Override
            public Optional<HeldLock> tryAcquire() {
                long sentAt = ctx.ticker().read();
                if (!server.tryAcquire(ctx.lockName(), owner, ttl).acquired()) {
                    return Optional.empty();
                }
                long first = mode == RenewalMode.SESSION
                        ? (driverValidityNanos == Deadlines.NEVER
                                ? Deadlines.NEVER
                                : Deadlines.after(sentAt, driverValidityNanos))
                        : ctx.validUntil(sentAt);
                return Optional.of(new HeldLock() {
                    private volatile long validUntil = first;

                    @Override
                    public OptionalLong fencingToken() {
                        return OptionalLong.empty();
                    }

                    @Override
                    public long validUntilNanos() {
                        return validUntil;
                    }

                    @Override
                    public boolean renew() {
                        renewCalls.incrementAndGet();
                        long renewSentAt = ctx.ticker().read();
                        boolean ok = server.renew(ctx.lockName(), owner, ttl);
                        if (ok) {
                            validUntil = ctx.validUntil(renewSentAt);
                        }
                        return ok;
                    }

                    @Override
                    public boolean release() {
                        return server.release(ctx.lockName(), owner);
                    }
                });
            }

            @Override
            public void awaitChange(long deadlineNanos) throws InterruptedException {
                if (!closed) {
                    server.await(ctx.lockName(), Deadlines.remaining(ctx.ticker(), deadlineNanos));
                }
            }
        };
    }

    @Override
    public void close() {
        closed = true;
        server.wakeAll();
    }
}
