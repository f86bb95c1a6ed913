package io.distlock.redis.core;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A queued waiter's mailbox for the grant message {@code "g <owner> <token> <server µs> <released
 * owner>"} that a release publishes when it hands the lock to {@code owner}. Fields guarded by its
 * subscriber's lock.
 */
public final class Grant {
    final String owner;
    final Subscription channel;
    private final ReentrantLock lock;
    final Condition wake;
    boolean arrived;
    /** The subscriber dropped the waiter's interest when the grant arrived (see {@link Subscriber#leave}). */
    boolean dropped;

    long token;
    long serverMicros;

    Grant(String owner, Subscription channel, ReentrantLock lock) {
        this.owner = owner;
        this.channel = channel;
        this.lock = lock;
        this.wake = lock.newCondition();
    }

    /** Whether the grant message arrived. */
    public boolean arrived() {
        lock.lock();
        try {
            return arrived;
        } finally {
            lock.unlock();
        }
    }

    /** The fencing token in the grant message (valid once {@link #arrived()}). */
    public long token() {
        lock.lock();
        try {
            return token;
        } finally {
            lock.unlock();
        }
    }

    /** The server's {@code TIME} (µs) when it granted (valid once {@link #arrived()}). */
    public long serverMicros() {
        lock.lock();
        try {
            return serverMicros;
        } finally {
            lock.unlock();
        }
    }
}
