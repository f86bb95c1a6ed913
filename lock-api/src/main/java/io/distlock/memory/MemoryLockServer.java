package io.distlock.memory;

import io.distlock.BackendUnavailableException;
import io.distlock.Ticker;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The shared state behind {@link MemoryLockProvider}s: plays the part of a lock server inside the
 * JVM. Several providers on one server behave like independent clients of one backend; that is how
 * the TCK runs its multi-client rules against the in-JVM reference implementation.
 *
 * <p>Each lock has an owner value and a TTL measured on the server's ticker; fencing tokens come
 * from one counter for the whole server (globally monotonic). Nothing is kept for a lock nobody
 * holds or waits for.
 *
 * <p>Fault hooks for tests: {@link #expire(String)} drops a holder as if its TTL ran out, and
 * {@link #setAvailable(boolean)} makes every request fail as if the server were down.
 */
public final class MemoryLockServer {
    private static final ConcurrentMap<String, MemoryLockServer> NAMED = new ConcurrentHashMap<>();

    private final Ticker ticker;
    private final ReentrantLock mutex = new ReentrantLock();
    private final Map<String, Slot> slots = new HashMap<>();
    private final AtomicLong requests = new AtomicLong();
    private long lastToken;
    private volatile boolean available = true;

    private MemoryLockServer(Ticker ticker) {
        this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
    }

    /** A new, private server on the system ticker. */
    public static MemoryLockServer create() {
        return new MemoryLockServer(Ticker.system());
    }

    /** A new, private server whose TTLs run on {@code ticker}. */
    public static MemoryLockServer create(Ticker ticker) {
        return new MemoryLockServer(ticker);
    }

    /** The JVM-wide server called {@code name} (what {@code mem://name} URIs connect to). */
    public static MemoryLockServer named(String name) {
        Objects.requireNonNull(name, "name must not be null");
        return NAMED.computeIfAbsent(name, n -> create());
    }

    private static final class Slot {
        String owner;
        long expiresAt;
        int waiters;
        final Condition changed;

        Slot(Condition changed) {
            this.changed = changed;
        }
    }

    /** Result of one acquisition request. */
    record Attempt(boolean acquired, long token, long holderRemainingNanos) {}

    private void checkAvailable(String name) {
        requests.incrementAndGet();
        if (!available) {
            throw new BackendUnavailableException("in-memory lock server is unavailable", name, "mem", null);
        }
    }

    /** Must hold mutex. Drops an expired owner. Returns the slot or null. */
    private Slot live(String name) {
        Slot s = slots.get(name);
        if (s != null && s.owner != null && s.expiresAt - ticker.read() <= 0) {
            s.owner = null;
            s.changed.signalAll();
        }
        return s;
    }

    private void dropIfIdle(String name, Slot s) {
        if (s.owner == null && s.waiters == 0) {
            slots.remove(name, s);
        }
    }

    Attempt tryAcquire(String name, String owner, long ttlNanos) {
        mutex.lock();
        try {
            checkAvailable(name);
            Slot s = live(name);
            if (s == null) {
                s = new Slot(mutex.newCondition());
                slots.put(name, s);
            }
            if (s.owner == null) {
                s.owner = owner;
                s.expiresAt = ticker.read() + ttlNanos;
                return new Attempt(true, ++lastToken, 0);
            }
            return new Attempt(false, 0, s.expiresAt - ticker.read());
        } finally {
            mutex.unlock();
        }
    }

    boolean renew(String name, String owner, long ttlNanos) {
        mutex.lock();
        try {
            checkAvailable(name);
            Slot s = live(name);
            if (s == null || !owner.equals(s.owner)) {
                return false;
            }
            s.expiresAt = ticker.read() + ttlNanos;
            return true;
        } finally {
            mutex.unlock();
        }
    }

    boolean release(String name, String owner) {
        mutex.lock();
        try {
            checkAvailable(name);
            Slot s = live(name);
            if (s == null || !owner.equals(s.owner)) {
                return false;
            }
            s.owner = null;
            s.changed.signalAll();
            dropIfIdle(name, s);
            return true;
        } finally {
            mutex.unlock();
        }
    }

    /**
     * Waits until the lock is free (released or expired), at most {@code maxNanos}. Returns at once
     * if it is free already, so a release between a failed try and this wait is never missed.
     */
    void await(String name, long maxNanos) throws InterruptedException {
        mutex.lock();
        try {
            checkAvailable(name);
            Slot s = live(name);
            if (s == null || s.owner == null) {
                return;
            }
            long wait = Math.min(maxNanos, s.expiresAt - ticker.read());
            if (wait <= 0) {
                return;
            }
            s.waiters++;
            try {
                s.changed.awaitNanos(wait);
            } finally {
                s.waiters--;
                dropIfIdle(name, s);
            }
        } finally {
            mutex.unlock();
        }
    }

    /** Wakes every waiting thread (used when a client closes; waiters then re-check). */
    void wakeAll() {
        mutex.lock();
        try {
            for (Slot s : slots.values()) {
                s.changed.signalAll();
            }
        } finally {
            mutex.unlock();
        }
    }

    /**
     * Drops the current holder of {@code name} as if its TTL had just run out, and wakes waiters.
     *
     * @return whether there was a holder
     */
    public boolean expire(String name) {
        mutex.lock();
        try {
            Slot s = live(name);
            if (s == null || s.owner == null) {
                return false;
            }
            s.owner = null;
            s.changed.signalAll();
            dropIfIdle(name, s);
            return true;
        } finally {
            mutex.unlock();
        }
    }

    /** Makes every request fail with {@link BackendUnavailableException} while {@code false}. */
    public void setAvailable(boolean available) {
        this.available = available;
        if (available) {
            wakeAll();
        }
    }

    /** The owner value holding {@code name}, if any. */
    public Optional<String> owner(String name) {
        mutex.lock();
        try {
            Slot s = live(name);
            return s == null ? Optional.empty() : Optional.ofNullable(s.owner);
        } finally {
            mutex.unlock();
        }
    }

    /** Number of locks currently tracked (held or waited on). */
    public int trackedLocks() {
        mutex.lock();
        try {
            slots.keySet().removeIf(n -> {
                Slot s = live(n);
                return s.owner == null && s.waiters == 0;
            });
            return slots.size();
        } finally {
            mutex.unlock();
        }
    }

    /** Number of requests served so far (for round-trip counting). */
    public long requests() {
        return requests.get();
    }
}
