package io.distlock.tck;

import io.distlock.BackendUnavailableException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A tiny lock server for the TCK's self-test: owner values with TTLs, one token counter, a password
 * that each client presents before its first request, and switches that break it the way real
 * backends get broken (see {@link ToyDriver.Bug}).
 */
final class ToyLockServer {
    /** How the server refuses wrong credentials; the driver decides what it means to the caller. */
    static final class AccessDenied extends RuntimeException {
        private static final long serialVersionUID = 1L;

        AccessDenied(String message) {
            super(message);
        }
    }

    private final byte[] password;
    private final ReentrantLock mutex = new ReentrantLock();
    private final Condition changed = mutex.newCondition();
    private final Map<String, Entry> entries = new HashMap<>();
    private final AtomicLong requests = new AtomicLong();
    private final boolean tokensResetOnRestart;
    private long lastToken;
    private volatile boolean available = true;

    /**
     * @param tokensResetOnRestart whether the token counter starts again when the server is started
     *     after a stop (a server that keeps no data)
     */
    ToyLockServer(String password, boolean tokensResetOnRestart) {
        this.password = Objects.requireNonNull(password, "password").getBytes(StandardCharsets.UTF_8);
        this.tokensResetOnRestart = tokensResetOnRestart;
    }

    /** Requests served so far (authentication, acquire, renew, release, wait). */
    long requests() {
        return requests.get();
    }

    /** The handshake of a new connection: throws {@link AccessDenied} unless {@code presented} is right. */
    void authenticate(String presented) {
        checkAvailable(null);
        if (!MessageDigest.isEqual(password, presented.getBytes(StandardCharsets.UTF_8))) {
            throw new AccessDenied("invalid password");
        }
    }

    void setAvailable(boolean value) {
        if (value && !available && tokensResetOnRestart) {
            mutex.lock();
            try {
                lastToken = 0;
            } finally {
                mutex.unlock();
            }
        }
        available = value;
        if (value) {
            wakeAll();
        }
    }

    private void checkAvailable(String name) {
        requests.incrementAndGet();
        if (!available) {
            throw new BackendUnavailableException("toy server is stopped", name, "toy", null);
        }
    }

    private static final class Entry {
        String owner;
        long expiresAt;
    }

    /** Must hold mutex. The live entry of {@code name}, or null. */
    private Entry live(String name, boolean honourTtl) {
        Entry e = entries.get(name);
        if (e != null && honourTtl && e.expiresAt - System.nanoTime() <= 0) {
            entries.remove(name);
            changed.signalAll();
            return null;
        }
        return e;
    }

    /** Returns the new token, or -1 if held. */
    long tryAcquire(String name, String owner, long ttlNanos, boolean honourTtl) {
        checkAvailable(name);
        mutex.lock();
        try {
            if (live(name, honourTtl) != null) {
                return -1;
            }
            Entry e = new Entry();
            e.owner = owner;
            e.expiresAt = System.nanoTime() + ttlNanos;
            entries.put(name, e);
            return ++lastToken;
        } finally {
            mutex.unlock();
        }
    }

    boolean renew(String name, String owner, long ttlNanos, boolean checkOwner, boolean honourTtl) {
        checkAvailable(name);
        mutex.lock();
        try {
            Entry e = live(name, honourTtl);
            if (checkOwner) {
                if (e == null || !e.owner.equals(owner)) {
                    return false;
                }
            } else if (e == null) {
                // the bug: re-create a lock that is gone
                e = new Entry();
                entries.put(name, e);
            }
            e.owner = owner;
            e.expiresAt = System.nanoTime() + ttlNanos;
            return true;
        } finally {
            mutex.unlock();
        }
    }

    boolean release(String name, String owner, boolean checkOwner, boolean honourTtl) {
        checkAvailable(name);
        mutex.lock();
        try {
            Entry e = live(name, honourTtl);
            if (e == null || (checkOwner && !e.owner.equals(owner))) {
                return false;
            }
            entries.remove(name);
            changed.signalAll();
            return true;
        } finally {
            mutex.unlock();
        }
    }

    /**
     * Waits for a change of {@code name}, at most {@code maxNanos}. With {@code recheck} (correct), it
     * returns at once if the lock is free already; without, it waits for the next signal even then.
     */
    void await(String name, long maxNanos, boolean honourTtl, boolean recheck) throws InterruptedException {
        checkAvailable(name);
        mutex.lock();
        try {
            Entry e = live(name, honourTtl);
            if (e == null && recheck) {
                return;
            }
            long wait = honourTtl && e != null ? Math.min(maxNanos, e.expiresAt - System.nanoTime()) : maxNanos;
            if (wait > 0) {
                changed.await(wait, TimeUnit.NANOSECONDS);
            }
        } finally {
            mutex.unlock();
        }
    }

    void expire(String name) {
        mutex.lock();
        try {
            entries.remove(name);
            changed.signalAll();
        } finally {
            mutex.unlock();
        }
    }

    void wakeAll() {
        mutex.lock();
        try {
            changed.signalAll();
        } finally {
            mutex.unlock();
        }
    }
}
