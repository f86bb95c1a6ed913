package io.distlock.zookeeper.internal;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider's own thread, {@code distlock-zookeeper-keepalive-N} (daemon, started on first use,
 * stopped on {@link #close()}): while the client holds locks it sends one {@code exists} every
 * fifth of the session timeout, whose answer moves the validity of all leases of the session
 * forward (one request per client, not per lock).
 */
final class ZkKeepalive {
    private static final Logger log = LoggerFactory.getLogger(ZkKeepalive.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final int MAX_IN_FLIGHT = 3;

    private final ZkRequests requests;
    private final ZkSession session;
    private final AtomicInteger inFlight = new AtomicInteger();
    private ScheduledThreadPoolExecutor executor;
    private volatile ScheduledFuture<?> task;
    private boolean closed;

    ZkKeepalive(ZkRequests requests, ZkSession session) {
        this.requests = requests;
        this.session = session;
    }

    /** Starts (once) the keepalive, one {@code exists} every fifth of the session timeout. */
    void ensureStarted() {
        if (task != null) {
            return; // started: the usual case, on every acquisition
        }
        synchronized (this) {
            if (task != null || closed) {
                return;
            }
            ScheduledThreadPoolExecutor e = executor();
            long period = Math.max(TimeUnit.MILLISECONDS.toNanos(10), session.sessionTimeoutNanos() / 5);
            task = e.scheduleWithFixedDelay(this::keepalive, period, period, TimeUnit.NANOSECONDS);
        }
    }

    synchronized void close() {
        closed = true;
        if (executor != null) {
            executor.shutdownNow();
        }
    }

    private synchronized ScheduledThreadPoolExecutor executor() {
        if (closed) {
            return null;
        }
        if (executor == null) {
            String name = "distlock-zookeeper-keepalive-" + SEQUENCE.incrementAndGet();
            executor = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                return t;
            });
            executor.setRemoveOnCancelPolicy(true);
        }
        return executor;
    }

    private void keepalive() {
        if (session.held.isEmpty() || requests.isClosed() || inFlight.get() >= MAX_IN_FLIGHT) {
            return;
        }
        inFlight.incrementAndGet();
        long sentAt = session.ticker.read();
        long sessionId = session.currentSessionId();
        try {
            requests.existsInBackground("/", (rc, stat) -> {
                inFlight.decrementAndGet();
                if ((rc == KeeperException.Code.OK || rc == KeeperException.Code.NONODE)
                        && sessionId == session.currentSessionId()) {
                    session.noteAnswered(sentAt);
                }
            });
        } catch (Exception e) {
            inFlight.decrementAndGet();
            log.debug("distlock.zookeeper.keepalive_failed", e);
        }
    }
}
