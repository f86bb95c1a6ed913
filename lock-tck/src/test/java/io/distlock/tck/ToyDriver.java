package io.distlock.tck;

import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.LockConfigurationException;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.Deadlines;
import io.distlock.spi.HeldLock;
import io.distlock.spi.LockDriver;
import io.distlock.spi.RenewalMode;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/** A driver of {@link ToyLockServer}, correct unless given bugs. */
final class ToyDriver implements LockDriver {

    /** Ways to break a lock backend. */
    enum Bug {
        /** release deletes the lock whoever owns it. */
        RELEASE_IGNORES_OWNER,
        /** the server never expires a lock: an abandoned lock stays held forever. */
        NO_TTL,
        /** renewal extends (or re-creates) the lock even if someone else owns it or it is gone. */
        RENEW_IGNORES_OWNER,
        /** fencing tokens come from a client-side counter, so they repeat across clients. */
        CLIENT_SIDE_TOKENS,
        /** the lease keeps saying it is valid after it was lost (decorator, see ValidAfterLostProvider). */
        VALID_AFTER_LOST,
        /** the server key drops invisible format characters (zero-width, bidi controls): names collide. */
        KEY_DROPS_FORMAT_CHARACTERS,
        /** a refused password is reported as BackendUnavailableException, so it is retried like an outage. */
        AUTH_FAILURE_AS_UNAVAILABLE,
        /** the validity deadline is counted from the reply, not from before the request. */
        VALIDITY_FROM_REPLY,
        /** the first refused renewal is taken for an outage (BackendUnavailableException), not a loss. */
        REFUSED_RENEWAL_TAKEN_FOR_OUTAGE,
        /** declares notification wake-up, but a waiter sleeps 100 ms and tries again. */
        POLLS_WHILE_DECLARING_NOTIFICATION,
        /** a heartbeat thread (not named distlock-*) keeps running after close(). */
        THREAD_LEFT_AFTER_CLOSE,
        /** the server key is the name cut to 191 characters (a VARCHAR(191) column): long names collide. */
        NAME_CUT_TO_191_CHARACTERS,
        /** a renewal sets half the lease time on the server, while the client counts the whole. */
        RENEWAL_SETS_SHORTER_TTL,
        /** declares fifo, but waiters are not queued: whoever tries first after a release wins. */
        FIFO_DECLARED_WITHOUT_QUEUE,
        /** a wait does not re-check the lock: a release between the failed try and the wait is missed. */
        LOST_WAKE_UP,
        /** declares fencing tokens that survive a restart, but the server's counter starts again. */
        TOKENS_RESET_ON_RESTART,
        /** renewals after an extension set the attempt's lease time again, not the extension's. */
        RENEWAL_FORGETS_EXTENSION,
        /** releaseAfter answers true whether or not the server found the lock still owned. */
        RELEASE_AFTER_ANSWERS_TRUE
    }

    static final Capabilities CAPABILITIES = Capabilities.builder()
            .fencing(Capabilities.Fencing.GLOBALLY_MONOTONIC)
            .fencingSurvivesServerRestart(true)
            .automaticRenewal(true)
            .wakeUp(Capabilities.WakeUp.NOTIFICATION)
            .failover(Capabilities.Failover.NOT_APPLICABLE)
            .leaseTiming(Capabilities.LeaseTiming.SERVER)
            .build();

    private final ToyLockServer server;
    private final String password;
    private final Set<Bug> bugs;
    private final AtomicLong clientTokens = new AtomicLong();
    /** How late every reply arrives (a slow network on the way back), in nanoseconds. */
    private final long replyDelayNanos;

    private final Thread heartbeat;
    private volatile boolean authenticated;
    private volatile boolean closed;
    private boolean refusalTakenForOutage; // touched only by the watchdog thread

    ToyDriver(ToyLockServer server, String password, Set<Bug> bugs, Duration replyDelay) {
        this.server = server;
        this.password = password;
        this.bugs = bugs.isEmpty() ? EnumSet.noneOf(Bug.class) : EnumSet.copyOf(bugs);
        this.replyDelayNanos = replyDelay.toNanos();
        if (this.bugs.contains(Bug.THREAD_LEFT_AFTER_CLOSE)) {
            heartbeat = new Thread(
                    () -> {
                        while (true) {
                            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
                        }
                    },
                    "toy-heartbeat");
            heartbeat.setDaemon(true);
            heartbeat.start();
        } else {
            heartbeat = null;
        }
    }

    /** The reply arrives {@link #replyDelayNanos} after the server handled the request. */
    private void reply() {
        long end = System.nanoTime() + replyDelayNanos;
        long left;
        while ((left = end - System.nanoTime()) > 0 && !Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(left);
        }
    }

    /**
     * Authenticates on the first request, as a client library does when it opens its connection. A
     * refused password is a configuration error, reported at once; with {@link
     * Bug#AUTH_FAILURE_AS_UNAVAILABLE} it passes for an outage instead.
     */
    private void connect(String lockName) {
        if (authenticated) {
            return;
        }
        try {
            server.authenticate(password);
        } catch (ToyLockServer.AccessDenied e) {
            if (bugs.contains(Bug.AUTH_FAILURE_AS_UNAVAILABLE)) {
                throw new BackendUnavailableException("toy server refused the connection", lockName, backend(), e);
            }
            throw new LockConfigurationException(
                    "toy server rejected the credentials: " + e.getMessage(), backend(), e);
        }
        authenticated = true;
    }

    private boolean ttl() {
        return !bugs.contains(Bug.NO_TTL);
    }

    @Override
    public String backend() {
        return "toy";
    }

    @Override
    public Capabilities capabilities() {
        if (bugs.contains(Bug.FIFO_DECLARED_WITHOUT_QUEUE)) {
            return CAPABILITIES.mutate().fifo(true).build();
        }
        return CAPABILITIES;
    }

    @Override
    public RenewalMode renewalMode() {
        return RenewalMode.WATCHDOG;
    }

    @Override
    public Contender contender(AcquireContext ctx) {
        String owner = UUID.randomUUID().toString();
        String name = key(ctx.lockName());
        long ttlNanos = ctx.leaseTime().toNanos();
        return new Contender() {
            @Override
            public Optional<HeldLock> tryAcquire() {
                connect(ctx.lockName());
                long sentAt = ctx.ticker().read();
                long token = server.tryAcquire(name, owner, ttlNanos, ttl());
                reply();
                if (bugs.contains(Bug.VALIDITY_FROM_REPLY)) {
                    sentAt = ctx.ticker().read();
                }
                if (token < 0) {
                    return Optional.empty();
                }
                if (bugs.contains(Bug.CLIENT_SIDE_TOKENS)) {
                    token = clientTokens.incrementAndGet();
                }
                return Optional.of(new Held(ctx, owner, token, ctx.validUntil(sentAt)));
            }

            @Override
            public void awaitChange(long deadlineNanos) throws InterruptedException {
                if (closed) {
                    return;
                }
                long left = Deadlines.remaining(ctx.ticker(), deadlineNanos);
                if (bugs.contains(Bug.POLLS_WHILE_DECLARING_NOTIFICATION)) {
                    TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
                    return;
                }
                server.await(name, left, ttl(), !bugs.contains(Bug.LOST_WAKE_UP));
                reply(); // the notification, too, reaches this client late
            }
        };
    }

    /** The server key of {@code lockName} (the name itself, unless a key bug is on). */
    String key(String lockName) {
        if (bugs.contains(Bug.NAME_CUT_TO_191_CHARACTERS) && lockName.length() > 191) {
            return lockName.substring(0, 191);
        }
        if (!bugs.contains(Bug.KEY_DROPS_FORMAT_CHARACTERS)) {
            return lockName;
        }
        StringBuilder sb = new StringBuilder();
        lockName.codePoints()
                .filter(cp -> Character.getType(cp) != Character.FORMAT)
                .forEach(sb::appendCodePoint);
        return sb.toString();
    }

    private final class Held implements HeldLock {
        private final AcquireContext ctx;
        private final String owner;
        private final long token;
        private volatile long validUntil;
        /** The time to live renewals set: the attempt's lease time, or the last extension's. */
        private volatile Duration leaseTime;

        Held(AcquireContext ctx, String owner, long token, long validUntil) {
            this.ctx = ctx;
            this.owner = owner;
            this.token = token;
            this.validUntil = validUntil;
            this.leaseTime = ctx.leaseTime();
        }

        @Override
        public OptionalLong fencingToken() {
            return OptionalLong.of(token);
        }

        @Override
        public long validUntilNanos() {
            return validUntil;
        }

        @Override
        public boolean renew() {
            long sentAt = ctx.ticker().read();
            Duration lease = leaseTime;
            long ttlNanos = lease.toNanos();
            if (bugs.contains(Bug.RENEWAL_SETS_SHORTER_TTL)) {
                ttlNanos /= 2;
            }
            boolean ok =
                    server.renew(key(ctx.lockName()), owner, ttlNanos, !bugs.contains(Bug.RENEW_IGNORES_OWNER), ttl());
            reply();
            if (bugs.contains(Bug.VALIDITY_FROM_REPLY)) {
                sentAt = ctx.ticker().read();
            }
            if (ok) {
                validUntil = ctx.validUntil(sentAt, lease);
            } else if (bugs.contains(Bug.REFUSED_RENEWAL_TAKEN_FOR_OUTAGE) && !refusalTakenForOutage) {
                refusalTakenForOutage = true;
                throw new BackendUnavailableException("toy server did not renew", ctx.lockName(), backend(), null);
            }
            return ok;
        }

        /** The renewal request with another time to live (the same owner check, and the same bug). */
        @Override
        public boolean extend(Duration leaseTime) {
            long sentAt = ctx.ticker().read();
            boolean ok = server.renew(
                    key(ctx.lockName()), owner, leaseTime.toNanos(), !bugs.contains(Bug.RENEW_IGNORES_OWNER), ttl());
            reply();
            if (bugs.contains(Bug.VALIDITY_FROM_REPLY)) {
                sentAt = ctx.ticker().read();
            }
            if (ok) {
                if (!bugs.contains(Bug.RENEWAL_FORGETS_EXTENSION)) {
                    this.leaseTime = leaseTime;
                }
                validUntil = ctx.validUntil(sentAt, leaseTime);
            }
            return ok;
        }

        @Override
        public boolean releaseAfter(Duration delay) {
            boolean ok = server.renew(
                    key(ctx.lockName()), owner, delay.toNanos(), !bugs.contains(Bug.RENEW_IGNORES_OWNER), ttl());
            reply();
            return ok || bugs.contains(Bug.RELEASE_AFTER_ANSWERS_TRUE);
        }

        @Override
        public boolean release() {
            boolean ok = server.release(key(ctx.lockName()), owner, !bugs.contains(Bug.RELEASE_IGNORES_OWNER), ttl());
            reply();
            return ok;
        }
    }

    @Override
    public void close() {
        closed = true;
        server.wakeAll();
    }
}
