package io.distlock.zookeeper.internal;

import io.distlock.LockConfigurationException;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.Deadlines;
import io.distlock.spi.HeldLock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.ErrorListenerPathAndBytesable;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * One acquisition attempt: creates its queue node on the first try and keeps it (its place in the
 * queue) across tries; waits on a watch on its immediate predecessor only; deletes its node when
 * the attempt ends without the lock.
 */
final class ZkContender implements Contender {
    private static final byte[] NO_DATA = new byte[0];
    private static final Comparator<String> BY_SEQUENCE = Comparator.comparing(ZkContender::sequence);

    /** A queue node as we create it: Curator's protection prefix, our node prefix, the sequence. */
    private static final Pattern OUR_NODE = Pattern.compile(
            "_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-" + ZkDriver.NODE_PREFIX + "-?\\d{10,11}");

    private final ZkDriver driver;
    private final AcquireContext ctx;
    private final String parent;
    // a Lock, not a monitor: on Java 21-23 a virtual thread waiting in Object.wait() inside
    // synchronized pins its carrier thread for the whole wait
    private final ReentrantLock monitor = new ReentrantLock();
    private final Condition changed = monitor.newCondition();
    private boolean signalled;

    private String ourName;
    private long czxid;
    private long sessionId;
    private String predecessor;
    private CompletableFuture<CuratorEvent> unansweredCreate;

    ZkContender(ZkDriver driver, AcquireContext ctx, String parent) {
        this.driver = driver;
        this.ctx = ctx;
        this.parent = parent;
    }

    /** The 10-digit sequence suffix ZooKeeper appends; protection prefixes differ, sequences don't. */
    static String sequence(String child) {
        return child.length() >= 10 ? child.substring(child.length() - 10) : child;
    }

    private String path(String child) {
        return parent + "/" + child;
    }

    @Override
    public Optional<HeldLock> tryAcquire() {
        checkOpen();
        for (int attempt = 0; attempt < 3; attempt++) {
            long sentAt = ctx.ticker().read();
            List<String> children;
            if (ourName != null && sessionId != driver.currentSessionId()) {
                // our session ended while we queued: that node is gone (or about to be)
                driver.deleteInBackground(path(ourName));
                ourName = null;
            }
            if (ourName == null) {
                children = createAndList();
            } else {
                children = list();
                if (children == null) {
                    children = List.of();
                }
            }
            driver.noteAnswered(sentAt);
            List<String> sorted = new ArrayList<>(children);
            checkNoForeignNodes(sorted);
            sorted.sort(BY_SEQUENCE);
            dropDuplicates(sorted);
            int index = sorted.indexOf(ourName);
            if (index < 0) {
                // our node vanished (session expired under us): queue again
                ourName = null;
                continue;
            }
            if (index == 0) {
                predecessor = null;
                boolean renew = ctx.options().autoRenew();
                ZkHeld h = new ZkHeld(
                        driver,
                        ctx,
                        path(ourName),
                        czxid,
                        sessionId,
                        renew ? driver.sessionDeadline(sentAt) : ctx.validUntil(sentAt),
                        renew);
                driver.held.add(h);
                if (renew) {
                    driver.ensureKeepalive();
                    if (Deadlines.remaining(ctx.ticker(), h.validUntilNanos())
                            < driver.sessionTimeout().toNanos() / 2) {
                        // the replies came late (a reconnect, a slow server): one more round trip
                        // so that the new lease starts with a useful validity
                        driver.refresh(ctx.lockName());
                    }
                } else {
                    driver.scheduleLeaseEnd(h, Deadlines.after(sentAt, ctx.leaseTime()));
                }
                if (sessionId != driver.currentSessionId()) {
                    h.lose("ZooKeeper session changed during acquisition", null);
                }
                return Optional.of(h);
            }
            predecessor = sorted.get(index - 1);
            return Optional.empty();
        }
        throw new io.distlock.BackendUnavailableException(
                "queue node kept disappearing (session unstable)", ctx.lockName(), ZkDriver.BACKEND, null);
    }

    /**
     * A node in the lock's queue that distlock did not create (someone with write access to the
     * lock's parent) is never taken for a holder or skipped: the attempt fails with a clear error
     * naming it, so nobody waits behind it forever and nobody ignores a real holder.
     */
    private void checkNoForeignNodes(List<String> children) {
        for (String child : children) {
            if (!OUR_NODE.matcher(child).matches()) {
                throw new LockConfigurationException(
                        "node " + path(child) + " in the queue of lock '" + ctx.lockName()
                                + "' was not created by distlock (expected _c_<uuid>-" + ZkDriver.NODE_PREFIX
                                + "<sequence>): remove it, and protect lock nodes with ACLs",
                        ZkDriver.BACKEND);
            }
        }
    }

    /**
     * A create retried after a lost reply can leave two nodes with our protection prefix. Keep the
     * lowest (our real place in the queue), delete the others, so we never wait behind ourselves.
     */
    private void dropDuplicates(List<String> sorted) {
        if (ourName == null || !ourName.startsWith("_c_") || ourName.length() < 40) {
            return;
        }
        String prefix = ourName.substring(0, 40);
        String first = null;
        for (java.util.Iterator<String> it = sorted.iterator(); it.hasNext(); ) {
            String child = it.next();
            if (!child.startsWith(prefix)) {
                continue;
            }
            if (first == null) {
                first = child;
            } else {
                driver.deleteInBackground(path(child));
                it.remove();
            }
        }
        if (first != null && !first.equals(ourName)) {
            Stat s = exists(path(first));
            if (s != null) {
                driver.duplicates.incrementAndGet();
                ourName = first;
                czxid = s.getCzxid();
                sessionId = s.getEphemeralOwner();
            }
        }
    }

    /**
     * Sends the protected ephemeral-sequential create and, right behind it on the same session, a
     * getChildren of the parent: ZooKeeper answers a session's requests in order, so the listing
     * includes our node and the uncontended path costs one round trip.
     */
    private List<String> createAndList() {
        CompletableFuture<CuratorEvent> created = driver.newPending();
        CompletableFuture<CuratorEvent> listed = driver.newPending();
        Stat stat = new Stat();
        long session = driver.currentSessionId();
        try {
            var builder = driver.client
                    .create()
                    .storingStatIn(stat)
                    .creatingParentContainersIfNeeded()
                    .withProtection()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL);
            BackgroundCallback cb = (c, ev) -> created.complete(ev);
            ErrorListenerPathAndBytesable<String> op = driver.acl == null
                    ? builder.inBackground(cb)
                    : builder.withACL(driver.acl, true).inBackground(cb);
            op.forPath(path(ZkDriver.NODE_PREFIX), NO_DATA);
        } catch (Exception e) {
            created.completeExceptionally(e);
        }
        try {
            driver.client
                    .getChildren()
                    .inBackground((BackgroundCallback) (c, ev) -> listed.complete(ev))
                    .forPath(parent);
        } catch (Exception e) {
            listed.completeExceptionally(e);
        }
        unansweredCreate = created;
        CuratorEvent ev = driver.await(created, "create in " + parent, ctx.lockName());
        unansweredCreate = null;
        if (ZkDriver.code(ev) != KeeperException.Code.OK) {
            throw ZkDriver.failure("create in " + parent, ev, ctx.lockName());
        }
        String fullPath = ev.getName() != null ? ev.getName() : ev.getPath();
        ourName = fullPath.substring(fullPath.lastIndexOf('/') + 1);
        sessionId = session;
        Stat s = ev.getStat() != null ? ev.getStat() : stat;
        if (s.getCzxid() != 0) {
            czxid = s.getCzxid();
            if (s.getEphemeralOwner() != 0) {
                sessionId = s.getEphemeralOwner();
            }
        } else {
            // only when Curator found the node again after a lost reply (protection)
            driver.statRereads.incrementAndGet();
            Stat again = exists(path(ourName));
            if (again == null) {
                ourName = null;
                return List.of();
            }
            czxid = again.getCzxid();
            sessionId = again.getEphemeralOwner();
        }
        CuratorEvent children = driver.await(listed, "getChildren " + parent, ctx.lockName());
        if (ZkDriver.code(children) == KeeperException.Code.OK
                && children.getChildren() != null
                && children.getChildren().contains(ourName)) {
            return children.getChildren();
        }
        // the create had to make the parent first (or was retried): list again
        driver.childrenRereads.incrementAndGet();
        List<String> again = list();
        return again == null ? List.of() : again;
    }

    /** The children of the parent, or {@code null} if the parent does not exist. */
    private List<String> list() {
        CompletableFuture<CuratorEvent> f = driver.newPending();
        try {
            driver.client
                    .getChildren()
                    .inBackground((BackgroundCallback) (c, ev) -> f.complete(ev))
                    .forPath(parent);
        } catch (Exception e) {
            f.completeExceptionally(e);
        }
        CuratorEvent ev = driver.await(f, "getChildren " + parent, ctx.lockName());
        switch (ZkDriver.code(ev)) {
            case OK:
                return ev.getChildren();
            case NONODE:
                return null;
            default:
                throw ZkDriver.failure("getChildren " + parent, ev, ctx.lockName());
        }
    }

    private Stat exists(String path) {
        CompletableFuture<CuratorEvent> f = driver.newPending();
        try {
            driver.client
                    .checkExists()
                    .inBackground((BackgroundCallback) (c, ev) -> f.complete(ev))
                    .forPath(path);
        } catch (Exception e) {
            f.completeExceptionally(e);
        }
        CuratorEvent ev = driver.await(f, "exists " + path, ctx.lockName());
        KeeperException.Code rc = ZkDriver.code(ev);
        if (rc == KeeperException.Code.OK) {
            return ev.getStat();
        }
        if (rc == KeeperException.Code.NONODE) {
            return null;
        }
        throw ZkDriver.failure("exists " + path, ev, ctx.lockName());
    }

    @Override
    public void awaitChange(long deadlineNanos) throws InterruptedException {
        if (predecessor == null || driver.isClosed()) {
            return;
        }
        monitor.lock();
        try {
            signalled = false;
        } finally {
            monitor.unlock();
        }
        driver.waiting.add(this);
        try {
            Watcher watcher = event -> {
                if (event.getType() != Watcher.Event.EventType.None) {
                    driver.watchNotifications.incrementAndGet();
                }
                signal();
            };
            CompletableFuture<CuratorEvent> f = driver.newPending();
            String watched = path(predecessor);
            try {
                driver.client
                        .checkExists()
                        .usingWatcher(watcher)
                        .inBackground((BackgroundCallback) (c, ev) -> f.complete(ev))
                        .forPath(watched);
            } catch (Exception e) {
                f.completeExceptionally(e);
            }
            CuratorEvent ev = driver.await(f, "exists " + watched, ctx.lockName());
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for lock '" + ctx.lockName() + "'");
            }
            if (ZkDriver.code(ev) != KeeperException.Code.OK || ev.getStat() == null) {
                return; // predecessor already gone (or the check failed): try again at once
            }
            monitor.lock();
            try {
                while (!signalled && !driver.isClosed()) {
                    long left = Deadlines.remaining(ctx.ticker(), deadlineNanos);
                    if (left <= 0) {
                        return;
                    }
                    changed.awaitNanos(Math.min(left, TimeUnit.SECONDS.toNanos(60)));
                }
            } finally {
                monitor.unlock();
            }
        } finally {
            driver.waiting.remove(this);
        }
    }

    void signal() {
        monitor.lock();
        try {
            signalled = true;
            changed.signalAll();
        } finally {
            monitor.unlock();
        }
    }

    @Override
    public void abandon() {
        driver.waiting.remove(this);
        CompletableFuture<CuratorEvent> pendingCreate = unansweredCreate;
        if (pendingCreate != null) {
            // the create's reply never came: delete the node if it turns up
            pendingCreate.thenAccept(ev -> {
                if (ZkDriver.code(ev) == KeeperException.Code.OK) {
                    driver.deleteInBackground(ev.getName());
                }
            });
        }
        String name = ourName;
        ourName = null;
        predecessor = null;
        if (name == null) {
            return;
        }
        if (driver.isClosed()) {
            driver.deleteInBackground(path(name));
        } else {
            driver.delete(path(name), ctx.lockName());
        }
    }

    private void checkOpen() {
        if (driver.isClosed()) {
            throw new IllegalStateException(
                    "provider is closed (lock '" + ctx.lockName() + "', backend " + ZkDriver.BACKEND + ")");
        }
    }
}
