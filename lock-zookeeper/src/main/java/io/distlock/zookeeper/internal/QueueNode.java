package io.distlock.zookeeper.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Deadlines;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * One attempt's node in a lock's queue: an ephemeral-sequential child of the lock's parent named
 * {@code <prefix><sequence>}, created on the attempt's first try and kept across tries (its place
 * in the queue), and deleted when the attempt ends without the lock.
 *
 * <p><b>A lost create reply</b> (the connection drops after the create was sent and before its
 * reply arrived, so the node may or may not exist) is handled here: after reconnecting, the parent
 * is listed and the node carrying the attempt's unique prefix is adopted if it exists on the
 * current session; only if it does not is it created again, with the same prefix so that a late
 * duplicate is still recognised. An attempt that ends while the outcome is unknown deletes, in the
 * background, every node with its prefix. The lock's parent (a container) is created only when a
 * create finds it missing.
 */
final class QueueNode {
    private static final byte[] NO_DATA = new byte[0];
    // creates tried by one createAndList (lost replies, a missing parent, a new session) before it gives up
    private static final int MAX_CREATE_ROUNDS = 20;

    private final ZkRequests requests;
    private final ZkCounters counters;
    private final QueueNodeNames names;
    private final MultiCreateHint hint;
    private final AcquireContext ctx;
    private final String parent;

    // this attempt's node name prefix: a unique "protection" part, then NODE_PREFIX
    private String prefix;
    private String name;
    private long czxid;
    private long sessionId;
    private CompletableFuture<Created> unansweredCreate;
    // a create with our prefix was sent and its reply lost: our node may exist
    private boolean createOutcomeUnknown;
    // the session that create was sent on
    private long unknownCreateSession;

    QueueNode(
            ZkRequests requests,
            ZkCounters counters,
            QueueNodeNames names,
            MultiCreateHint hint,
            AcquireContext ctx,
            String parent) {
        this.requests = requests;
        this.counters = counters;
        this.names = names;
        this.hint = hint;
        this.ctx = ctx;
        this.parent = parent;
        this.prefix = names.newPrefix();
    }

    /** Our node's name, or {@code null} while we have none. */
    String name() {
        return name;
    }

    long czxid() {
        return czxid;
    }

    /** The session that owns our node. */
    long sessionId() {
        return sessionId;
    }

    String path(String child) {
        return parent + "/" + child;
    }

    /** Takes {@code other} (a node with our prefix, lower in the queue) as our node. */
    void adopt(String other, Stat stat) {
        name = other;
        czxid = stat.getCzxid();
        sessionId = stat.getEphemeralOwner();
    }

    /** Our node vanished with its session: we have none, and the next one gets a new prefix. */
    void forget() {
        name = null;
        prefix = names.newPrefix();
    }

    /** The session that owned our node ended while we queued: that node is gone (or about to be). */
    void dropWithEndedSession() {
        requests.deleteInBackground(path(name));
        forget();
    }

    /**
     * Sends the ephemeral-sequential create of our node and returns the queue as it was right
     * after it. When the {@link MultiCreateHint} says so, the create goes as one {@code multi} with
     * a {@code setData} of the parent, whose reply tells whether our node is alone (then no listing
     * is needed); otherwise a {@code getChildren} of the parent follows it on the same session
     * (ZooKeeper answers a session's requests in order, so the listing includes our node and the
     * path costs one round trip).
     *
     * <p>The create goes straight to the ZooKeeper handle (the plain create asynchronously, so that
     * the listing can follow it before its reply).
     *
     * @return the children of the parent; {@linkplain #name() our name} is among them, or is {@code
     *     null} if our node was gone before its czxid could be read
     */
    List<String> createAndList() {
        long deadline = Deadlines.after(ctx.ticker().read(), requests.operationTimeoutNanos());
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
                                + Duration.ofNanos(requests.operationTimeoutNanos()),
                        ctx.lockName(),
                        ZkErrors.BACKEND,
                        null);
            }
            ZooKeeper zk = requests.connectedHandle();
            if (zk == null) {
                requests.awaitConnected(deadline, ctx.lockName());
                continue;
            }
            long session = zk.getSessionId();
            String nodePath = path(prefix);
            CompletableFuture<Created> created = requests.newPending();
            List<ACL> acl = requests.directCreateAcl();
            boolean multi = acl != null && hint.createAsMulti(parent);
            try {
                if (acl == null) {
                    // a given client without provider ACL: its own ACL provider applies
                    Stat stat = new Stat();
                    requests.client
                            .create()
                            .storingStatIn(stat)
                            .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                            .inBackground((BackgroundCallback) (c, ev) -> created.complete(new Created(
                                    ev.getResultCode(), ev.getName(), ev.getStat() != null ? ev.getStat() : stat, -1)))
                            .forPath(nodePath, NO_DATA);
                } else if (!multi) {
                    zk.create(
                            requests.namespaced(nodePath),
                            NO_DATA,
                            acl,
                            CreateMode.EPHEMERAL_SEQUENTIAL,
                            (rc, p, c, n, stat) -> created.complete(new Created(rc, n, stat, -1)),
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
                listed = requests.childrenDirect(parent);
            }
            Created reply = requests.await(created, "create in " + parent, ctx.lockName());
            unansweredCreate = null;
            KeeperException.Code rc = KeeperException.Code.get(reply.rc());
            switch (rc) {
                case OK:
                    return created(reply, session, multi, listed);
                case NONODE:
                    requests.createParent(parent, ctx.lockName());
                    break;
                case NOAUTH:
                    if (!multi || reply.createRefused()) {
                        // no CREATE permission in the lock's parent: retrying cannot help
                        throw ZkErrors.failure("create in " + parent, rc, nodePath, ctx.lockName());
                    }
                    // the multi is atomic: nothing was created; no WRITE permission on the parent
                    // (a caller's ACL): plain creates from now on
                    hint.refuseMulti();
                    break;
                case CONNECTIONLOSS:
                case OPERATIONTIMEOUT:
                    // the create may have reached the server: look for it before creating again
                    counters.lostCreateReplies.incrementAndGet();
                    createOutcomeUnknown = true;
                    unknownCreateSession = session;
                    break;
                case SESSIONEXPIRED:
                case SESSIONMOVED:
                    // nothing of that session survives; create on the next one
                    prefix = names.newPrefix();
                    requests.awaitConnected(deadline, ctx.lockName());
                    break;
                default:
                    throw ZkErrors.failure("create in " + parent, rc, nodePath, ctx.lockName());
            }
        }
    }

    /** Our node was created: takes its name, czxid and owner, and returns the queue. */
    private List<String> created(Created reply, long session, boolean multi, List<String> listed) {
        name = reply.name().substring(reply.name().lastIndexOf('/') + 1);
        Stat stat = reply.stat();
        if (stat == null || stat.getCzxid() == 0) {
            // a Curator create that did not return the node's Stat
            counters.statRereads.incrementAndGet();
            stat = requests.stat(path(name), ctx.lockName());
            if (stat == null) {
                name = null;
                return List.of();
            }
        }
        czxid = stat.getCzxid();
        sessionId = stat.getEphemeralOwner() != 0 ? stat.getEphemeralOwner() : session;
        if (multi) {
            counters.multiCreates.incrementAndGet();
            boolean alone = reply.parentChildren() == 1;
            hint.noteQueue(parent, !alone);
            if (alone) {
                // our node is the only child, in the transaction that created it
                return List.of(name);
            }
        } else if (listed != ZkRequests.NO_ANSWER && listed != null && listed.contains(name)) {
            hint.noteQueue(parent, listed.size() > 1);
            return listed;
        }
        if (!multi) {
            // the listing failed or came from before the parent existed: list again
            counters.childrenRereads.incrementAndGet();
        }
        List<String> again = requests.children(parent, ctx.lockName());
        return again == null ? List.of() : again;
    }

    /**
     * After a create whose outcome is unknown: lists the parent (waiting for the connection, with
     * Curator's retries) and adopts the node carrying our prefix if it exists on our current
     * session. Returns the listing if it did, {@code null} to create (again, with the same prefix).
     */
    private List<String> findOurNode() {
        List<String> children = requests.children(parent, ctx.lockName());
        if (children == null) {
            children = List.of();
        }
        String found = children.stream()
                .filter(c -> c.startsWith(prefix))
                .min(QueueNodeNames.BY_SEQUENCE)
                .orElse(null);
        if (found != null) {
            Stat s = requests.stat(path(found), ctx.lockName());
            if (s != null && s.getEphemeralOwner() == requests.currentSessionId()) {
                createOutcomeUnknown = false;
                counters.recoveredCreates.incrementAndGet();
                adopt(found, s);
                return children;
            }
            if (s != null) {
                // made on a session that is gone (or going): it cannot be ours to hold
                requests.deleteInBackground(path(found));
            }
        }
        if (unknownCreateSession != requests.currentSessionId()) {
            // another session: a node of the old one goes with it; a fresh prefix for the new one
            prefix = names.newPrefix();
        }
        createOutcomeUnknown = false;
        return null;
    }

    /**
     * The create as one {@code multi} with a {@code setData} of the parent (see {@link
     * MultiCreateHint}). Interrupted while waiting for the reply, the outcome is unknown (as after a
     * connection loss: the node is looked for by its prefix) and the interrupt is kept.
     */
    private Created createAsMulti(ZooKeeper zk, String nodePath, List<ACL> acl) {
        try {
            return Created.ofMulti(zk.multi(List.of(
                    Op.create(requests.namespaced(nodePath), NO_DATA, acl, CreateMode.EPHEMERAL_SEQUENTIAL),
                    Op.setData(requests.namespaced(parent), NO_DATA, -1))));
        } catch (KeeperException e) {
            return Created.failed(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Created.failed(KeeperException.Code.CONNECTIONLOSS);
        } catch (RuntimeException e) {
            // e.g. the handle closed under us: as a lost reply, the node is looked for by its prefix
            return Created.failed(KeeperException.Code.CONNECTIONLOSS);
        }
    }

    /**
     * The attempt ended without the lock: deletes our node (before returning, unless the provider
     * is closed), and in the background any node a create whose reply has not come or was lost may
     * have made.
     */
    void abandon() {
        CompletableFuture<Created> pendingCreate = unansweredCreate;
        if (pendingCreate != null) {
            // the create's reply never came: delete the node if it turns up
            String ownPrefix = prefix;
            pendingCreate.thenAccept(reply -> {
                if (reply.rc() == KeeperException.Code.OK.intValue()) {
                    requests.deleteInBackground(
                            path(reply.name().substring(reply.name().lastIndexOf('/') + 1)));
                } else if (reply.rc() != KeeperException.Code.NONODE.intValue()) {
                    requests.deletePrefixedInBackground(parent, ownPrefix);
                }
            });
        }
        if (createOutcomeUnknown) {
            // a create whose reply was lost may have made a node: find it by our prefix
            createOutcomeUnknown = false;
            requests.deletePrefixedInBackground(parent, prefix);
        }
        String ours = name;
        name = null;
        if (ours == null) {
            return;
        }
        if (requests.isClosed()) {
            requests.deleteInBackground(path(ours));
        } else {
            requests.delete(path(ours), ctx.lockName());
        }
    }

    /**
     * The reply to a create; {@code parentChildren} is the parent's number of children right after
     * the create when it came as a multi with the parent's setData, else -1; {@code createRefused}
     * says that a failed multi failed on the create itself (not on the parent's setData).
     */
    private record Created(int rc, String name, Stat stat, int parentChildren, boolean createRefused) {
        Created(int rc, String name, Stat stat, int parentChildren) {
            this(rc, name, stat, parentChildren, false);
        }

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

        /** A failed multi: which of its two operations failed is in the per-operation results. */
        static Created failed(KeeperException e) {
            List<OpResult> results = e.getResults();
            boolean createRefused = results != null
                    && !results.isEmpty()
                    && results.get(0) instanceof OpResult.ErrorResult error
                    && error.getErr() == e.code().intValue();
            return new Created(e.code().intValue(), null, null, -1, createRefused);
        }

        static Created failed(KeeperException.Code code) {
            return new Created(code.intValue(), null, null, -1);
        }
    }
}
