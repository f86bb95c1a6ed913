package io.distlock.shedlock;

import io.distlock.Lease;
import io.distlock.UnsupportedCapabilityException;
import java.util.Deque;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * The distlock lease behind the ShedLock lock that the current thread holds, and its fencing token:
 * what ShedLock's {@code LockAssert} and {@code SimpleLock} do not carry.
 *
 * <p>{@link DistlockShedLockProvider} binds a lease to the thread that acquired it and unbinds it at
 * unlock, so inside a {@code @SchedulerLock} method (or a {@code LockingTaskExecutor} task) the job
 * reaches the token of its own hold and passes it with its writes; the resource rejects a write whose
 * token is older than one it has seen ({@code io.distlock.fencing}), which stops a job that kept
 * running after its lock expired (a long pause, {@code lockAtMostFor} too short) from overwriting the
 * work of the instance that took the lock after it:
 *
 * <pre>{@code
 * @Scheduled(cron = "0 * * * * *")
 * @SchedulerLock(name = "daily-report", lockAtMostFor = "5m", lockAtLeastFor = "30s")
 * public void run() {
 *     long token = DistlockLockAssert.currentToken();
 *     reports.write(today(), token);   // e.g. JdbcFencingGuard.check(connection, "daily-report", token)
 * }
 * }</pre>
 *
 * <p>With nested locks the innermost one is current. The binding is per thread: work handed to other
 * threads must take the lease (or the token) with it. The token is a value of the backend's fencing
 * scheme ({@link io.distlock.Capabilities#fencing()}): it increases from one holder of a lock to the
 * next, including across instances.
 */
public final class DistlockLockAssert {
    private static final ThreadLocal<Deque<Binding>> BOUND = new ThreadLocal<>();

    private DistlockLockAssert() {}

    /**
     * The lease of the innermost lock that {@link DistlockShedLockProvider} acquired on this thread and
     * that is not unlocked yet.
     *
     * @throws IllegalStateException if this thread holds no such lock (the method is not running under
     *     {@code @SchedulerLock}, or the lock is not a distlock one)
     */
    public static Lease currentLease() {
        return current().lease;
    }

    /**
     * The fencing token of {@link #currentLease()}.
     *
     * @throws IllegalStateException if this thread holds no distlock ShedLock lock
     * @throws UnsupportedCapabilityException if the backend hands out no fencing tokens
     */
    public static long currentToken() {
        Binding b = current();
        return b.lease
                .fencingToken()
                .orElseThrow(() -> new UnsupportedCapabilityException(
                        "backend has no fencing tokens", b.lease.lockName(), b.backend));
    }

    private static Binding current() {
        Deque<Binding> bound = BOUND.get();
        Binding b = bound == null ? null : bound.peekLast();
        if (b == null) {
            throw new IllegalStateException("this thread holds no lock from DistlockShedLockProvider"
                    + " (call it from the locked task, on the thread that runs it)");
        }
        return b;
    }

    static Binding bind(Lease lease, String backend) {
        Deque<Binding> bound = BOUND.get();
        if (bound == null) {
            bound = new ConcurrentLinkedDeque<>();
            BOUND.set(bound);
        }
        Binding b = new Binding(bound, Objects.requireNonNull(lease), backend);
        bound.addLast(b);
        return b;
    }

    /** A lease bound to the thread that acquired it, until {@link #unbind()}. */
    static final class Binding {
        private final Deque<Binding> owner;
        final Lease lease;
        final String backend;

        private Binding(Deque<Binding> owner, Lease lease, String backend) {
            this.owner = owner;
            this.lease = lease;
            this.backend = backend;
        }

        /** Removes the binding; safe from any thread and more than once. */
        void unbind() {
            owner.remove(this);
            if (owner.isEmpty() && BOUND.get() == owner) {
                BOUND.remove();
            }
        }
    }
}
