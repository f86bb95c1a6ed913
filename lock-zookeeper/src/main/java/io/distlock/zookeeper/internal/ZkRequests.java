package io.distlock.zookeeper.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.Ticker;
import io.distlock.spi.Deadlines;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requests of the recipe on one Curator client: listing a lock's queue, the predecessor's
 * {@code exists} watch, deletes, the lock parent's creation, background cleanup, and waiting for
 * replies.
 *
 * <p>The hot path (listing a queue, setting the predecessor watch, the release's delete) uses the
 * ZooKeeper handle's synchronous calls: ZooKeeper's SendThread wakes the caller directly when the
 * reply arrives. Curator's background callbacks (and the raw asynchronous API) run on the
 * EventThread instead, one more thread hand-over per request, which costs tens of microseconds on a
 * busy machine. Whenever a direct call cannot be used or does not give a clear answer (not
 * connected, the thread interrupted, connection loss, any other error), the Curator request is used
 * instead, with its retries, guaranteed deletes and errors.
 *
 * <p>Paths given here are relative to the client's namespace (chroot); {@link #namespaced} adds it
 * for the ZooKeeper handle.
 */
final class ZkRequests {
    private static final Logger log = LoggerFactory.getLogger(ZkRequests.class);
    private static final byte[] RELEASED = new byte[0];

    /** Marker for "the direct call gave no clear answer, use the Curator request". */
    static final List<String> NO_ANSWER = List.of("\u0000");

    /** Outcome of an {@code exists}. */
    enum Exists {
        YES,
        NO,
        NO_ANSWER
    }

    final CuratorFramework client;
    private final boolean ownsClient;
    private final List<ACL> acl;
    private final Ticker ticker;
    private final long operationTimeoutNanos;
    private final ZkCounters counters;
    // the Curator namespace as a path prefix ("" for none), for requests on the ZooKeeper handle
    private final String namespacePrefix;
    private final Set<CompletableFuture<?>> pending = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private volatile boolean announceReleases = true;

    /**
     * @param ownsClient whether the provider built the client itself (its default ACL is known)
     * @param acl ACL for created nodes, or {@code null} for the client's default
     * @param operationTimeoutNanos the longest wait for the reply to one background request
     */
    ZkRequests(
            CuratorFramework client,
            boolean ownsClient,
            List<ACL> acl,
            Ticker ticker,
            long operationTimeoutNanos,
            ZkCounters counters) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.acl = acl == null ? null : List.copyOf(acl);
        this.ticker = ticker;
        this.operationTimeoutNanos = operationTimeoutNanos;
        this.counters = counters;
        String namespace = client.getNamespace();
        this.namespacePrefix = namespace == null || namespace.isEmpty() ? "" : ZKPaths.makePath(namespace, null);
    }

    long operationTimeoutNanos() {
        return operationTimeoutNanos;
    }

    boolean isClosed() {
        return closed;
    }

    /** No new request from now on; replies still awaited fail with "provider is closed". */
    void close() {
        closed = true;
        IllegalStateException closing = new IllegalStateException("provider is closed");
        for (CompletableFuture<?> f : pending) {
            f.completeExceptionally(closing);
        }
    }

    // ---------------------------------------------------------------- the connection

    boolean isConnected() {
        return client.getZookeeperClient().isConnected();
    }

    /** The current ZooKeeper session id, or 0 if there is none. */
    long currentSessionId() {
        try {
            ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
            return zk == null ? 0 : zk.getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    /** The handle for a direct call, or {@code null} to use the Curator request. */
    ZooKeeper direct() {
        if (closed || Thread.currentThread().isInterrupted() || !isConnected()) {
            return null;
        }
        return handle();
    }

    /** The handle if the client is connected (whether or not the thread is interrupted), else {@code null}. */
    ZooKeeper connectedHandle() {
        if (closed || !isConnected()) {
            return null;
        }
        return handle();
    }

    private ZooKeeper handle() {
        try {
            return client.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            return null;
        }
    }

    /**
     * Waits until the client is connected or {@code deadline} passes (at most one second per call).
     *
     * @throws IllegalStateException if the provider is closed
     * @throws BackendUnavailableException if interrupted (the interrupt is kept)
     */
    void awaitConnected(long deadline, String lockName) {
        checkOpen(lockName);
        long left = Deadlines.remaining(ticker, deadline);
        if (left <= 0) {
            return;
        }
        try {
            client.blockUntilConnected(
                    (int) Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 1000)), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException(
                    "interrupted while waiting for a connection", lockName, ZkErrors.BACKEND, e);
        }
    }

    /** @throws IllegalStateException if the provider is closed */
    void checkOpen(String lockName) {
        if (closed) {
            throw new IllegalStateException(
                    "provider is closed (lock '" + lockName + "', backend " + ZkErrors.BACKEND + ")");
        }
    }

    /** {@code path} with the client's namespace (chroot) in front, for the ZooKeeper handle. */
    String namespaced(String path) {
        // the paths are built from the validated root, encoded lock names and our own node names;
        // the ZooKeeper handle validates every path it is given again
        return namespacePrefix.isEmpty() ? path : namespacePrefix + path;
    }

    /**
     * The ACL of a queue node created by a direct call: the provider's, or the default ACL of the
     * client the provider built itself; {@code null} for a given client without provider ACL, whose
     * own ACL provider (not exposed by Curator) then applies through a Curator create.
     */
    List<ACL> directCreateAcl() {
        return acl != null ? acl : ownsClient ? ZooDefs.Ids.OPEN_ACL_UNSAFE : null;
    }

    // ---------------------------------------------------------------- replies

    /** A future completed by a background callback, failed on {@link #close()}. */
    <T> CompletableFuture<T> newPending() {
        CompletableFuture<T> f = new CompletableFuture<>();
        pending.add(f);
        f.whenComplete((r, t) -> pending.remove(f));
        if (closed) {
            f.completeExceptionally(new IllegalStateException("provider is closed"));
        }
        return f;
    }

    /**
     * Waits (uninterruptibly, bounded by the operation timeout) for a background reply; an interrupt
     * is kept for the caller to see.
     */
    <T> T await(CompletableFuture<T> f, String what, String lockName) {
        long deadline = System.nanoTime() + operationTimeoutNanos;
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException e) {
                    throw new BackendUnavailableException(
                            "no reply to " + what + " within " + Duration.ofNanos(operationTimeoutNanos),
                            lockName,
                            ZkErrors.BACKEND,
                            e);
                } catch (ExecutionException e) {
                    if (closed) {
                        throw new IllegalStateException(
                                "provider is closed (lock '" + lockName + "', backend " + ZkErrors.BACKEND + ")",
                                e.getCause());
                    }
                    throw new BackendUnavailableException(what + " failed", lockName, ZkErrors.BACKEND, e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static KeeperException.Code code(CuratorEvent ev) {
        return KeeperException.Code.get(ev.getResultCode());
    }

    private static BackgroundCallback completing(CompletableFuture<CuratorEvent> f) {
        return (c, ev) -> f.complete(ev);
    }

    // ---------------------------------------------------------------- reads

    /** The children of {@code parent}, or {@code null} if it does not exist: a direct call, else Curator's. */
    List<String> children(String parent, String lockName) {
        List<String> direct = childrenDirect(parent);
        if (direct != NO_ANSWER) {
            return direct;
        }
        CompletableFuture<CuratorEvent> f = newPending();
        try {
            client.getChildren().inBackground(completing(f)).forPath(parent);
        } catch (Exception e) {
            f.completeExceptionally(e);
        }
        CuratorEvent ev = await(f, "getChildren " + parent, lockName);
        KeeperException.Code rc = code(ev);
        switch (rc) {
            case OK:
                return ev.getChildren();
            case NONODE:
                return null;
            default:
                throw ZkErrors.failure("getChildren " + parent, rc, parent, lockName);
        }
    }

    /**
     * The children of {@code parent} by a direct call: the list, {@code null} if the parent does
     * not exist, or {@link #NO_ANSWER}.
     */
    List<String> childrenDirect(String parent) {
        ZooKeeper zk = direct();
        if (zk == null) {
            return NO_ANSWER;
        }
        try {
            return zk.getChildren(namespaced(parent), false);
        } catch (KeeperException.NoNodeException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return NO_ANSWER;
        } catch (Exception e) {
            log.debug("distlock.zookeeper.direct_children_failed path={}", parent, e);
            return NO_ANSWER;
        }
    }

    /** The Stat of {@code path}, or {@code null} if it does not exist (Curator, with its retries). */
    Stat stat(String path, String lockName) {
        CompletableFuture<CuratorEvent> f = newPending();
        try {
            client.checkExists().inBackground(completing(f)).forPath(path);
        } catch (Exception e) {
            f.completeExceptionally(e);
        }
        CuratorEvent ev = await(f, "exists " + path, lockName);
        KeeperException.Code rc = code(ev);
        if (rc == KeeperException.Code.OK) {
            return ev.getStat();
        }
        if (rc == KeeperException.Code.NONODE) {
            return null;
        }
        throw ZkErrors.failure("exists " + path, rc, path, lockName);
    }

    /**
     * {@code exists} on {@code path} with {@code watcher}: a direct call, else Curator's;
     * {@link Exists#NO_ANSWER} if neither gave a clear answer.
     */
    Exists existsWatched(String path, Watcher watcher, String lockName) {
        Exists exists = existsDirect(path, watcher);
        if (exists != Exists.NO_ANSWER) {
            return exists;
        }
        CompletableFuture<CuratorEvent> f = newPending();
        try {
            client.checkExists()
                    .usingWatcher(watcher)
                    .inBackground(completing(f))
                    .forPath(path);
        } catch (Exception e) {
            f.completeExceptionally(e);
        }
        CuratorEvent ev = await(f, "exists " + path, lockName);
        KeeperException.Code rc = code(ev);
        return rc == KeeperException.Code.OK && ev.getStat() != null
                ? Exists.YES
                : rc == KeeperException.Code.NONODE ? Exists.NO : Exists.NO_ANSWER;
    }

    private Exists existsDirect(String path, Watcher watcher) {
        ZooKeeper zk = direct();
        if (zk == null) {
            return Exists.NO_ANSWER;
        }
        try {
            Stat s = zk.exists(namespaced(path), watcher);
            return s == null ? Exists.NO : Exists.YES;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Exists.NO_ANSWER;
        } catch (Exception e) {
            log.debug("distlock.zookeeper.direct_exists_failed path={}", path, e);
            return Exists.NO_ANSWER;
        }
    }

    /** {@code exists} of {@code path} in the background; {@code then} gets its outcome and Stat. */
    void existsInBackground(String path, BiConsumer<KeeperException.Code, Stat> then) throws Exception {
        client.checkExists()
                .inBackground((BackgroundCallback) (c, ev) -> then.accept(code(ev), ev.getStat()))
                .forPath(path);
    }

    // ---------------------------------------------------------------- writes

    /**
     * Deletes {@code path}: a direct call first; without a clear answer, Curator's guaranteed delete
     * (if the connection drops, Curator retries in the background until it succeeds or the node is
     * gone), whose outcome it waits for.
     *
     * @return {@code true} if deleted, {@code false} if it did not exist
     */
    boolean delete(String path, String lockName) {
        ZooKeeper zk = direct();
        if (zk != null) {
            try {
                zk.delete(namespaced(path), -1);
                return true;
            } catch (KeeperException.NoNodeException e) {
                return false;
            } catch (InterruptedException e) {
                // the delete was sent; the guaranteed delete below finishes the job (it may then
                // find the node gone, as after a connection loss with Curator's own retry)
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                log.debug("distlock.zookeeper.direct_delete_failed path={}", path, e);
            }
        }
        CompletableFuture<CuratorEvent> f = newPending();
        try {
            client.delete().guaranteed().inBackground(completing(f)).forPath(path);
        } catch (Exception e) {
            f.completeExceptionally(e);
        }
        CuratorEvent ev = await(f, "delete " + path, lockName);
        KeeperException.Code rc = code(ev);
        switch (rc) {
            case OK:
                return true;
            case NONODE:
                return false;
            default:
                throw ZkErrors.failure("delete " + path, rc, path, lockName);
        }
    }

    /**
     * Releases a held lock's node {@code path} with one {@code multi}: {@code setData} then {@code
     * delete}. A successor's {@code exists} watch fires once, with NodeDataChanged, which tells it
     * that a holder released (nothing below it is left) rather than that a waiter gave up or a
     * session expired (NodeDeleted). Without a clear answer (or without write permission on the
     * node, remembered), the plain {@link #delete}.
     *
     * @return {@code true} if deleted, {@code false} if it did not exist
     */
    boolean releaseAnnounced(String path, String lockName) {
        ZooKeeper zk = announceReleases ? direct() : null;
        if (zk != null) {
            String p = namespaced(path);
            try {
                zk.multi(List.of(Op.setData(p, RELEASED, -1), Op.delete(p, -1)));
                counters.announcedReleases.incrementAndGet();
                return true;
            } catch (KeeperException.NoNodeException e) {
                return false;
            } catch (KeeperException.NoAuthException e) {
                announceReleases = false; // no write permission on our nodes: plain deletes
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                log.debug("distlock.zookeeper.announced_release_failed path={}", path, e);
            }
        }
        return delete(path, lockName);
    }

    /** Deletes {@code path} in the background (guaranteed), without waiting. */
    void deleteInBackground(String path) {
        try {
            client.delete().guaranteed().inBackground().forPath(path);
        } catch (Exception e) {
            log.debug("distlock.zookeeper.background_delete_failed path={}", path, e);
        }
    }

    /**
     * A create of a child named {@code prefix<sequence>} in {@code parent} was sent but its outcome
     * is unknown and the attempt is over: lists {@code parent} in the background and deletes every
     * child with that (unique) prefix, so a create whose reply was lost leaves no orphan.
     */
    void deletePrefixedInBackground(String parent, String prefix) {
        try {
            client.getChildren()
                    .inBackground((BackgroundCallback) (c, ev) -> {
                        if (code(ev) == KeeperException.Code.OK && ev.getChildren() != null) {
                            for (String child : ev.getChildren()) {
                                if (child.startsWith(prefix)) {
                                    deleteInBackground(parent + "/" + child);
                                }
                            }
                        }
                    })
                    .forPath(parent);
        } catch (Exception e) {
            log.debug("distlock.zookeeper.background_cleanup_failed path={}", parent, e);
        }
    }

    /**
     * Creates a lock's parent (a container node) and any missing ancestor, with the provider's ACL;
     * another client creating it first is fine. Only needed when a create in it found no parent.
     *
     * @throws io.distlock.LockConfigurationException if the ACL of the root path refuses the create
     */
    void createParent(String parent, String lockName) {
        try {
            var builder = client.create().creatingParentContainersIfNeeded();
            if (acl == null) {
                builder.withMode(CreateMode.CONTAINER).forPath(parent);
            } else {
                builder.withMode(CreateMode.CONTAINER).withACL(acl, true).forPath(parent);
            }
        } catch (KeeperException.NodeExistsException e) {
            // created by someone else in the meantime
        } catch (KeeperException e) {
            if (ZkErrors.isRefusal(e.code())) {
                throw ZkErrors.refused("create " + parent, e.code(), parent, lockName, e);
            }
            throw new BackendUnavailableException(
                    "create " + parent + " failed: " + e.code(), lockName, ZkErrors.BACKEND, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException(
                    "interrupted while creating " + parent, lockName, ZkErrors.BACKEND, e);
        } catch (Exception e) {
            throw new BackendUnavailableException("create " + parent + " failed", lockName, ZkErrors.BACKEND, e);
        }
    }
}
