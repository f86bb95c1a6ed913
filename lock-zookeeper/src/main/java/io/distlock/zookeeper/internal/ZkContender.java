package io.distlock.zookeeper.internal;

import io.distlock.BackendUnavailableException;
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
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * One acquisition attempt: creates its queue node on the first try and keeps it (its place in the
 * queue) across tries; waits on a watch on its immediate predecessor only; deletes its node when
 * the attempt ends without the lock.
 */
final class ZkContender implements Contender {
    private static final byte[] NO_DATA = new byte[0];
    // creates tried by one createAndList (lost replies, a missing parent, a new session) before it gives up
    private static final int MAX_CREATE_ROUNDS = 20;
    private static final Comparator<String> BY_SEQUENCE = Comparator.comparing(ZkContender::sequence);

    private static final String PROTECTION = "_c_";
    // where the dashes of the UUID part are, counted from its start
    private static final long UUID_DASHES = (1L << 8) | (1L << 13) | (1L << 18) | (1L << 23);
    private static final int UUID_LENGTH = 36;

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
    // the predecessor was the lowest node when we listed the queue
    private boolean predecessorLowest;
    // set (by a watcher on the EventThread, or by the exists reply) to the name of a predecessor
    // that was seen deleted
    private volatile String goneName;
    // set by the watcher to the name of a predecessor whose holder released it (NodeDataChanged)
    private volatile String releasedName;
    // our current node was not the lowest when first listed: we waited behind someone
    private boolean waited;
    // send time of the exists that set the current predecessor watch (answered on sessionId)
    private long watchSentAt;
    // the current predecessor watch was set, and answered, on the session that owns our node
    private boolean watchOnOurSession;
    private CompletableFuture<Created> unansweredCreate;
    // this attempt's node name prefix: a unique "protection" part, then NODE_PREFIX
    private String prefix;
    // a create with our prefix was sent and its reply lost: our node may exist
    private boolean createOutcomeUnknown;
    // the session that create was sent on
    private long unknownCreateSession;

    ZkContender(ZkDriver driver, AcquireContext ctx, String parent) {
        this.driver = driver;
        this.ctx = ctx;
        this.parent = parent;
        newPrefix();
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
        if (predecessorGoneWhileLowest()) {
            // No node can be below ours any more: every node with a lower sequence was created
            // before ours, so it was in the listing that made the predecessor our watch target; the
            // predecessor was the only one of them (or it announced, in the transaction that
            // deleted it, that it held the lock, so nothing was below it), and it is deleted. The
            // listing would only confirm this, so it is skipped (one round trip less per hand-off).
            driver.skippedRereads.incrementAndGet();
            predecessor = null;
            return Optional.of(hold(driver.latestAnswered(sessionId, watchSentAt)));
        }
        for (int attempt = 0; attempt < 3; attempt++) {
            long sentAt = ctx.ticker().read();
            List<String> children;
            if (ourName != null && sessionId != driver.currentSessionId()) {
                // our session ended while we queued: that node is gone (or about to be)
                driver.deleteInBackground(path(ourName));
                ourName = null;
                newPrefix();
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
                newPrefix();
                continue;
            }
            if (index == 0) {
                predecessor = null;
                return Optional.of(hold(sentAt));
            }
            // a successor may list the queue while we wait here and see nodes below ours: when we
            // hold and release, we announce it (see ZkHeld#release)
            waited = true;
            predecessor = sorted.get(index - 1);
            predecessorLowest = index == 1;
            watchOnOurSession = false;
            goneName = null;
            return Optional.empty();
        }
        throw new BackendUnavailableException(
                "queue node kept disappearing (session unstable)", ctx.lockName(), ZkDriver.BACKEND, null);
    }

    /**
     * Whether the predecessor we watch has been seen deleted, on our current session (whose node is
     * therefore still there), and either was the lowest node of the queue when we listed it or was
     * released by its holder (a holder's release sets its node's data and deletes it in one
     * transaction: our {@code exists} watch sees that as NodeDataChanged, a deletion for any other
     * reason — a waiter giving up, an expired session — as NodeDeleted).
     */
    private boolean predecessorGoneWhileLowest() {
        String p = predecessor;
        return p != null
                && (predecessorLowest || p.equals(releasedName))
                && ourName != null
                && ctx.options().autoRenew()
                && watchOnOurSession
                && p.equals(goneName)
                && sessionId == driver.currentSessionId()
                && driver.client.getZookeeperClient().isConnected();
    }

    /**
     * Our node is the lowest: the lock is ours, valid from the send time {@code sentAt} of a
     * request the server answered on our session.
     */
    private ZkHeld hold(long sentAt) {
        boolean renew = ctx.options().autoRenew();
        ZkHeld h = new ZkHeld(
                driver,
                ctx,
                path(ourName),
                czxid,
                sessionId,
                renew ? driver.sessionDeadline(sentAt) : ctx.validUntil(sentAt),
                renew,
                waited);
        driver.held.add(h);
        if (renew) {
            driver.ensureKeepalive();
            if (Deadlines.remaining(ctx.ticker(), h.validUntilNanos())
                    < driver.sessionTimeout().toNanos() / 2) {
                // the replies came late (a reconnect, a slow server, a long wait since the last
                // answered request): one more round trip so that the new lease starts with a useful
                // validity
                driver.refresh(ctx.lockName());
            }
        } else {
            driver.scheduleLeaseEnd(h, Deadlines.after(sentAt, ctx.leaseTime()));
        }
        if (sessionId != driver.currentSessionId()) {
            h.lose("ZooKeeper session changed during acquisition", null);
        }
        return h;
    }

    /**
     * A node in the lock's queue that distlock did not create (someone with write access to the
     * lock's parent) is never taken for a holder or skipped: the attempt fails with a clear error
     * naming it, so nobody waits behind it forever and nobody ignores a real holder.
     */
    private void checkNoForeignNodes(List<String> children) {
        for (String child : children) {
            if (!isQueueNode(child)) {
                throw new LockConfigurationException(
                        "node " + path(child) + " in the queue of lock '" + ctx.lockName()
                                + "' was not created by distlock (expected _c_<uuid>-" + ZkDriver.NODE_PREFIX
                                + "<sequence>): remove it, and protect lock nodes with ACLs",
                        ZkDriver.BACKEND);
            }
        }
    }

    /**
     * Whether {@code child} is named as distlock names queue nodes: {@code _c_}, a UUID in its
     * lower-case text form, {@code -lock-}, then the sequence ZooKeeper appended ({@code -?} and 10
     * or 11 digits). Checked by hand rather than by a regular expression: it runs for every child of
     * every listing, on the acquisition's path.
     */
    static boolean isQueueNode(String child) {
        int uuidAt = PROTECTION.length();
        int lockAt = uuidAt + UUID_LENGTH + 1;
        int seqAt = lockAt + ZkDriver.NODE_PREFIX.length();
        if (!child.startsWith(PROTECTION) || child.length() < seqAt + 10) {
            return false;
        }
        for (int i = 0; i < UUID_LENGTH; i++) {
            char c = child.charAt(uuidAt + i);
            boolean dash = (UUID_DASHES & (1L << i)) != 0;
            if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        if (child.charAt(lockAt - 1) != '-' || !child.startsWith(ZkDriver.NODE_PREFIX, lockAt)) {
            return false;
        }
        int digitsAt = child.charAt(seqAt) == '-' ? seqAt + 1 : seqAt;
        int digits = child.length() - digitsAt;
        if (digits < 10 || digits > 11) {
            return false;
        }
        for (int i = digitsAt; i < child.length(); i++) {
            char c = child.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
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
     *
     * <p>The create goes straight to the ZooKeeper handle (asynchronously, so that the listing can
     * follow it before its reply). Its node name starts with this attempt's unique {@link #prefix}
     * ("protection"): when the connection drops before the reply arrives, the create may or may not
     * have happened, and the node is looked for by that prefix after reconnecting before anything is
     * created again, so a lost reply never leaves an orphan that would block the lock. The lock's
     * parent (a container) is created only when the create finds it missing.
     */
    private List<String> createAndList() {
        long deadline = Deadlines.after(ctx.ticker().read(), driver.operationTimeoutNanos);
        for (int round = 0; ; round++) {
            if (createOutcomeUnknown) {
                List<String> found = findOurNode();
                if (found != null) {
                    return found;
                }
            }
            if (Deadlines.passed(ctx.ticker(), deadline) || round >= MAX_CREATE_ROUNDS) {
                throw new BackendUnavailableException(
                        "no successful create in " + parent + " within "
                                + java.time.Duration.ofNanos(driver.operationTimeoutNanos),
                        ctx.lockName(),
                        ZkDriver.BACKEND,
                        null);
            }
            ZooKeeper zk = driver.connectedHandle();
            if (zk == null) {
                driver.awaitConnected(deadline, ctx.lockName());
                continue;
            }
            long session = zk.getSessionId();
            String nodePath = path(prefix);
            CompletableFuture<Created> created = driver.newPending();
            List<ACL> acl = driver.directCreateAcl();
            boolean multi = acl != null && driver.createAsMulti(parent);
            try {
                if (acl == null) {
                    // a given client without provider ACL: its own ACL provider applies
                    Stat stat = new Stat();
                    driver.client
                            .create()
                            .storingStatIn(stat)
                            .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                            .inBackground((BackgroundCallback) (c, ev) -> created.complete(new Created(
                                    ev.getResultCode(), ev.getName(), ev.getStat() != null ? ev.getStat() : stat, -1)))
                            .forPath(nodePath, NO_DATA);
                } else if (!multi) {
                    zk.create(
                            driver.namespaced(nodePath),
                            NO_DATA,
                            acl,
                            CreateMode.EPHEMERAL_SEQUENTIAL,
                            (rc, p, c, name, stat) -> created.complete(new Created(rc, name, stat, -1)),
                            null);
                }
            } catch (Exception e) {
                created.completeExceptionally(e);
            }
            unansweredCreate = created;
            // a direct (synchronous) getChildren right behind the create: the SendThread wakes us
            // when its reply arrives, by which time the create's reply is already on its way to the
            // callback. Not with the multi, whose reply tells whether anyone else is queued.
            List<String> listed = null;
            if (multi) {
                // synchronous: the SendThread wakes us with the reply (an asynchronous callback
                // would add the EventThread's hop)
                created.complete(createAsMulti(zk, nodePath, acl));
            } else {
                listed = driver.childrenDirect(parent);
            }
            Created reply = driver.await(created, "create in " + parent, ctx.lockName());
            unansweredCreate = null;
            KeeperException.Code rc = KeeperException.Code.get(reply.rc());
            switch (rc) {
                case OK:
                    waited = false;
                    ourName = reply.name().substring(reply.name().lastIndexOf('/') + 1);
                    Stat stat = reply.stat();
                    if (stat == null || stat.getCzxid() == 0) {
                        // a Curator create that did not return the node's Stat
                        driver.statRereads.incrementAndGet();
                        stat = exists(path(ourName));
                        if (stat == null) {
                            ourName = null;
                            return List.of();
                        }
                    }
                    czxid = stat.getCzxid();
                    sessionId = stat.getEphemeralOwner() != 0 ? stat.getEphemeralOwner() : session;
                    if (multi) {
                        driver.multiCreates.incrementAndGet();
                        boolean alone = reply.parentChildren() == 1;
                        driver.noteQueue(parent, !alone);
                        if (alone) {
                            // our node is the only child, in the transaction that created it
                            return List.of(ourName);
                        }
                    } else if (listed != ZkDriver.NO_ANSWER && listed != null && listed.contains(ourName)) {
                        driver.noteQueue(parent, listed.size() > 1);
                        return listed;
                    }
                    if (!multi) {
                        // the listing failed or came from before the parent existed: list again
                        driver.childrenRereads.incrementAndGet();
                    }
                    List<String> again = list();
                    return again == null ? List.of() : again;
                case NONODE:
                    driver.createParent(parent, ctx.lockName());
                    break;
                case NOAUTH:
                    if (!multi) {
                        throw new BackendUnavailableException(
                                "create in " + parent + " failed: " + rc,
                                ctx.lockName(),
                                ZkDriver.BACKEND,
                                KeeperException.create(rc, nodePath));
                    }
                    // the multi is atomic: nothing was created; no WRITE permission on the parent
                    // (a caller's ACL): plain creates from now on
                    driver.multiCreateRefused();
                    break;
                case CONNECTIONLOSS:
                case OPERATIONTIMEOUT:
                    // the create may have reached the server: look for it before creating again
                    driver.lostCreateReplies.incrementAndGet();
                    createOutcomeUnknown = true;
                    unknownCreateSession = session;
                    break;
                case SESSIONEXPIRED:
                case SESSIONMOVED:
                    // nothing of that session survives; create on the next one
                    newPrefix();
                    driver.awaitConnected(deadline, ctx.lockName());
                    break;
                default:
                    throw new BackendUnavailableException(
                            "create in " + parent + " failed: " + rc,
                            ctx.lockName(),
                            ZkDriver.BACKEND,
                            KeeperException.create(rc, nodePath));
            }
        }
    }

    /**
     * After a create whose outcome is unknown: lists the parent (waiting for the connection, with
     * Curator's retries) and adopts the node carrying our prefix if it exists on our current
     * session. Returns the listing if it did, {@code null} to create (again, with the same prefix).
     */
    private List<String> findOurNode() {
        List<String> children = list();
        if (children == null) {
            children = List.of();
        }
        String found = children.stream()
                .filter(c -> c.startsWith(prefix))
                .min(BY_SEQUENCE)
                .orElse(null);
        if (found != null) {
            Stat s = exists(path(found));
            if (s != null && s.getEphemeralOwner() == driver.currentSessionId()) {
                createOutcomeUnknown = false;
                driver.recoveredCreates.incrementAndGet();
                waited = false;
                ourName = found;
                czxid = s.getCzxid();
                sessionId = s.getEphemeralOwner();
                return children;
            }
            if (s != null) {
                // made on a session that is gone (or going): it cannot be ours to hold
                driver.deleteInBackground(path(found));
            }
        }
        if (unknownCreateSession != driver.currentSessionId()) {
            // another session: a node of the old one goes with it; a fresh prefix for the new one
            newPrefix();
        }
        createOutcomeUnknown = false;
        return null;
    }

    private void newPrefix() {
        prefix = driver.newProtection() + ZkDriver.NODE_PREFIX;
    }

    /**
     * The create as one {@code multi} with a {@code setData} of the parent (see {@link
     * ZkDriver#createAsMulti}). Interrupted while waiting for the reply, the outcome is unknown (as
     * after a connection loss: the node is looked for by its prefix) and the interrupt is kept.
     */
    private Created createAsMulti(ZooKeeper zk, String nodePath, List<ACL> acl) {
        try {
            return Created.ofMulti(zk.multi(List.of(
                    Op.create(driver.namespaced(nodePath), NO_DATA, acl, CreateMode.EPHEMERAL_SEQUENTIAL),
                    Op.setData(driver.namespaced(parent), NO_DATA, -1))));
        } catch (KeeperException e) {
            return Created.failed(e.code());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Created.failed(KeeperException.Code.CONNECTIONLOSS);
        } catch (RuntimeException e) {
            // e.g. the handle closed under us: as a lost reply, the node is looked for by its prefix
            return Created.failed(KeeperException.Code.CONNECTIONLOSS);
        }
    }

    /**
     * The reply to an asynchronous create; {@code parentChildren} is the parent's number of children
     * right after the create when it came as a multi with the parent's setData, else -1.
     */
    private record Created(int rc, String name, Stat stat, int parentChildren) {
        /**
         * From the multi's results: our node's czxid is the parent's mzxid (one transaction for both
         * operations, one zxid); its ephemeral owner is the session the multi was sent on.
         */
        static Created ofMulti(List<OpResult> results) {
            if (results == null
                    || results.size() != 2
                    || !(results.get(0) instanceof OpResult.CreateResult create)
                    || !(results.get(1) instanceof OpResult.SetDataResult parentData)
                    || parentData.getStat() == null) {
                return failed(KeeperException.Code.SYSTEMERROR);
            }
            Stat ours = new Stat();
            ours.setCzxid(parentData.getStat().getMzxid());
            return new Created(
                    KeeperException.Code.OK.intValue(),
                    create.getPath(),
                    ours,
                    parentData.getStat().getNumChildren());
        }

        static Created failed(KeeperException.Code code) {
            return new Created(code.intValue(), null, null, -1);
        }
    }

    /** The children of the parent, or {@code null} if the parent does not exist. */
    private List<String> list() {
        List<String> direct = driver.childrenDirect(parent);
        if (direct != ZkDriver.NO_ANSWER) {
            return direct;
        }
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
            String watchedName = predecessor;
            Watcher watcher = event -> {
                if (event.getType() != Watcher.Event.EventType.None) {
                    driver.watchNotifications.incrementAndGet();
                }
                if (event.getType() == Watcher.Event.EventType.NodeDataChanged) {
                    // only a holder's release writes a queue node, deleting it in the same
                    // transaction (ZkDriver#releaseAnnounced)
                    releasedName = watchedName;
                    goneName = watchedName;
                } else if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                    goneName = watchedName;
                }
                signal();
            };
            String watched = path(watchedName);
            watchOnOurSession = false;
            long sessionBefore = driver.currentSessionId();
            long sentAt = ctx.ticker().read();
            ZkDriver.Exists exists = driver.existsDirect(watched, watcher);
            if (exists == ZkDriver.Exists.NO_ANSWER) {
                CompletableFuture<CuratorEvent> f = driver.newPending();
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
                KeeperException.Code rc = ZkDriver.code(ev);
                exists = rc == KeeperException.Code.OK && ev.getStat() != null
                        ? ZkDriver.Exists.YES
                        : rc == KeeperException.Code.NONODE ? ZkDriver.Exists.NO : ZkDriver.Exists.NO_ANSWER;
            }
            if (exists != ZkDriver.Exists.NO_ANSWER) {
                driver.noteAnswered(sentAt);
                if (sessionBefore == sessionId && driver.currentSessionId() == sessionId) {
                    watchSentAt = sentAt;
                    watchOnOurSession = true;
                }
            }
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for lock '" + ctx.lockName() + "'");
            }
            if (exists == ZkDriver.Exists.NO) {
                goneName = watchedName; // predecessor already gone: try again at once
                return;
            }
            if (exists != ZkDriver.Exists.YES) {
                return; // the check failed: try again at once
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
        CompletableFuture<Created> pendingCreate = unansweredCreate;
        if (pendingCreate != null) {
            // the create's reply never came: delete the node if it turns up
            pendingCreate.thenAccept(reply -> {
                if (reply.rc() == KeeperException.Code.OK.intValue()) {
                    driver.deleteInBackground(
                            path(reply.name().substring(reply.name().lastIndexOf('/') + 1)));
                } else if (reply.rc() != KeeperException.Code.NONODE.intValue()) {
                    driver.deletePrefixedInBackground(parent, prefix);
                }
            });
        }
        if (createOutcomeUnknown) {
            // a create whose reply was lost may have made a node: find it by our prefix
            createOutcomeUnknown = false;
            driver.deletePrefixedInBackground(parent, prefix);
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
