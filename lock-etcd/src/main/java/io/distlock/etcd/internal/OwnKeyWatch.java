package io.distlock.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * An attempt's watch of its own key: a delete by someone else (or by the lease's end) is a loss
 * for a holder and a wake-up for a waiter.
 *
 * <p>The watch starts {@value #DELAY_MILLIS} ms after it is asked for, so a lock held and released
 * within that time costs no watch at all, from the revision after the one at which the transaction
 * saw the key, so nothing is missed. The loss signal for a key deleted by someone else may thus
 * come up to that delay plus etcd 3.4's 100 ms unsynced-watcher period late; a lease that ends is
 * also seen by the keepalive, and the validity deadline never moves. Internal.
 */
final class OwnKeyWatch {
    private static final long DELAY_MILLIS = 100;

    private final EtcdDriver driver;
    private final Supplier<ByteSequence> currentKey;
    private final Consumer<ByteSequence> onDeleted;
    private final Object lock = new Object();
    private SessionThread.Delayed task; // guarded by lock
    private DeleteWatches.Handle watch; // guarded by lock
    private boolean stopped; // guarded by lock

    /**
     * @param currentKey the attempt's key now: a watch for a key that is no longer it is not made
     * @param onDeleted told (on the session thread) when the watched key is deleted
     */
    OwnKeyWatch(EtcdDriver driver, Supplier<ByteSequence> currentKey, Consumer<ByteSequence> onDeleted) {
        this.driver = driver;
        this.currentKey = currentKey;
        this.onDeleted = onDeleted;
    }

    /**
     * Watches {@code key} for deletes from {@code fromRevision} on, starting {@value #DELAY_MILLIS}
     * ms from now. Does nothing if a watch is already set up or scheduled, or after {@link
     * #stop(boolean) stop(true)}.
     */
    void startLater(ByteSequence key, long fromRevision) {
        synchronized (lock) {
            if (stopped || watch != null || task != null) {
                return;
            }
            SessionThread.Delayed t =
                    new SessionThread.Delayed(driver.ticker().read() + TimeUnit.MILLISECONDS.toNanos(DELAY_MILLIS)) {
                        @Override
                        public void run() {
                            synchronized (lock) {
                                if (task != this) {
                                    return;
                                }
                                task = null;
                                if (stopped || watch != null || !key.equals(currentKey.get())) {
                                    return;
                                }
                                watch = watch(key, fromRevision);
                            }
                        }
                    };
            task = t;
            driver.thread().runLater(t);
        }
    }

    /** Stops (or never starts) the watch; {@code forGood}: no new one after this. */
    void stop(boolean forGood) {
        DeleteWatches.Handle w;
        synchronized (lock) {
            if (forGood) {
                stopped = true;
            }
            if (task != null) {
                driver.thread().cancelLater(task);
                task = null;
            }
            w = watch;
            watch = null;
        }
        if (w != null) {
            w.cancel();
        }
    }

    private DeleteWatches.Handle watch(ByteSequence key, long fromRevision) {
        return driver.watches().watchDeletes(key, fromRevision, new DeleteWatches.Listener() {
            @Override
            public void created(long revision) {}

            @Override
            public void deleted(long revision, long markedHolder) {
                // a loss signal runs user code (callbacks on lost()): not on a transport thread
                driver.thread().execute(() -> onDeleted.accept(key));
            }

            @Override
            public void failed(String reason) {
                // compaction or a closed client; the keepalive still watches the session
            }
        });
    }
}
