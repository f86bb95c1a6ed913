package io.distlock.redis.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One channel a {@link Subscriber} listens to for its waiters: how many of them (the subscription
 * is reference-counted), the wake-up permits release messages left, the epoch that events which
 * may have hidden a release advance, whether the server confirmed the subscription, the listeners
 * told of its events and the grant mailboxes of its queued waiters. A waiter holds it as the handle
 * of its interest. Guarded by its subscriber's lock; only the subscriber reads and writes it.
 */
public final class Subscription {
    final String name;
    private final ReentrantLock lock;
    final Condition wake;
    int refs;
    long permits;
    long epoch;
    boolean confirmed;
    final List<Subscriber.Listener> listeners = new ArrayList<>(1);
    final List<Grant> grantees = new ArrayList<>(1);

    Subscription(String name, ReentrantLock lock) {
        this.name = name;
        this.lock = lock;
        this.wake = lock.newCondition();
    }

    /** Wakes one sleeper: a thread waiting for a wake-up permit or else the oldest grantee. */
    void wakeOne() {
        if (lock.hasWaiters(wake)) {
            wake.signal();
            return;
        }
        for (Grant g : grantees) {
            if (lock.hasWaiters(g.wake)) {
                g.wake.signal();
                return;
            }
        }
    }

    /** Advances the epoch and wakes every sleeper and listener once (a release may have been missed). */
    void broadcast() {
        epoch++;
        wake.signalAll();
        for (Grant g : grantees) {
            g.wake.signal();
        }
        for (Subscriber.Listener l : listeners) {
            l.maybeMissed();
        }
    }
}
