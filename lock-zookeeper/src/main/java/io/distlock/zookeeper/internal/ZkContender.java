package io.distlock.zookeeper.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.LockConfigurationException;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.Deadlines;
import io.distlock.spi.HeldLock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import org.apache.zookeeper.data.Stat;

/**
 * One acquisition attempt: puts its {@link QueueNode} in the lock's queue on the first try and
 * keeps it across tries; holds the lock when that node is the lowest; otherwise waits on a {@link
 * PredecessorWatch} on its immediate predecessor only; deletes its node when the attempt ends
 * without the lock.
 */
final class ZkContender implements Contender {
    private final ZkDriver driver;
    private final ZkRequests requests;
    private final ZkSession session;
    private final AcquireContext ctx;
    private final String parent;
    private final QueueNode node;
    private final PredecessorWatch watch;
    // our current node was not the lowest when first listed: we waited behind someone
    private boolean waited;

    ZkContender(ZkDriver driver, AcquireContext ctx, String parent) {
        this.driver = driver;
        this.requests = driver.requests;
        this.session = driver.session;
        this.ctx = ctx;
        this.parent = parent;
        this.node = new QueueNode(requests, driver.counters, driver.names, driver.hint, ctx, parent);
        this.watch = new PredecessorWatch(requests, session, driver.counters, ctx, parent);
    }

    @Override
    public Optional<HeldLock> tryAcquire() {
        requests.checkOpen(ctx.lockName());
        if (predecessorGoneWhileLowest()) {
            // No node can be below ours any more (see PredecessorWatch#goneWhileLowest): the
            // listing would only confirm it, so it is skipped (one round trip less per hand-off).
            driver.counters.skippedRereads.incrementAndGet();
            watch.clear();
            return Optional.of(hold(session.latestAnswered(node.sessionId(), watch.watchSentAt())));
        }
        for (int attempt = 0; attempt < 3; attempt++) {
            long sentAt = ctx.ticker().read();
            List<String> children;
            if (node.name() != null && node.sessionId() != session.currentSessionId()) {
                node.dropWithEndedSession();
            }
            if (node.name() == null) {
                waited = false;
                children = node.createAndList();
            } else {
                children = requests.children(parent, ctx.lockName());
                if (children == null) {
                    children = List.of();
                }
            }
            session.noteAnswered(sentAt);
            List<String> sorted = new ArrayList<>(children);
            checkNoForeignNodes(sorted);
            sorted.sort(QueueNodeNames.BY_SEQUENCE);
            dropDuplicates(sorted);
            int index = sorted.indexOf(node.name());
            if (index < 0) {
                // our node vanished (session expired under us): queue again
                node.forget();
                continue;
            }
            if (index == 0) {
                watch.clear();
                return Optional.of(hold(sentAt));
            }
            // a successor may list the queue while we wait here and see nodes below ours: when we
            // hold and release, we announce it (see ZkHeld#release)
            waited = true;
            watch.target(sorted.get(index - 1), index == 1);
            return Optional.empty();
        }
        throw new BackendUnavailableException(
                "queue node kept disappearing (session unstable)", ctx.lockName(), ZkErrors.BACKEND, null);
    }

    /**
     * Whether the watch proves the lock ours without a listing: the predecessor is gone (see {@link
     * PredecessorWatch#goneWhileLowest()}), our node is still there on the current session, and the
     * client is connected.
     */
    private boolean predecessorGoneWhileLowest() {
        return watch.goneWhileLowest()
                && node.name() != null
                && node.sessionId() == session.currentSessionId()
                && requests.isConnected();
    }

    /**
     * Our node is the lowest: the lock is ours, valid from the send time {@code sentAt} of a
     * request the server answered on our session.
     */
    private ZkHeld hold(long sentAt) {
        ZkHeld h = new ZkHeld(
                requests,
                session,
                ctx,
                node.path(node.name()),
                node.czxid(),
                node.sessionId(),
                session.sessionDeadline(sentAt),
                waited);
        session.held.add(h);
        driver.keepalive.ensureStarted();
        if (Deadlines.remaining(ctx.ticker(), h.validUntilNanos()) < session.sessionTimeoutNanos() / 2) {
            // the replies came late (a reconnect, a slow server, a long wait since the last
            // answered request): one more round trip so that the new lease starts with a useful
            // validity
            session.refresh(ctx.lockName());
        }
        if (node.sessionId() != session.currentSessionId()) {
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
            if (!QueueNodeNames.isQueueNode(child)) {
                throw new LockConfigurationException(
                        "node " + node.path(child) + " in the queue of lock '" + ctx.lockName()
                                + "' was not created by distlock (expected _c_<uuid>-" + QueueNodeNames.NODE_PREFIX
                                + "<sequence>): remove it, and protect lock nodes with ACLs",
                        ZkErrors.BACKEND);
            }
        }
    }

    /**
     * A create retried after a lost reply can leave two nodes with our protection prefix. Keep the
     * lowest (our real place in the queue), delete the others, so we never wait behind ourselves.
     */
    private void dropDuplicates(List<String> sorted) {
        String ours = node.name();
        String protection = ours == null ? null : QueueNodeNames.protectionOf(ours);
        if (protection == null) {
            return;
        }
        String first = null;
        for (Iterator<String> it = sorted.iterator(); it.hasNext(); ) {
            String child = it.next();
            if (!child.startsWith(protection)) {
                continue;
            }
            if (first == null) {
                first = child;
            } else {
                requests.deleteInBackground(node.path(child));
                it.remove();
            }
        }
        if (first != null && !first.equals(ours)) {
            Stat s = requests.stat(node.path(first), ctx.lockName());
            if (s != null) {
                driver.counters.duplicates.incrementAndGet();
                node.adopt(first, s);
            }
        }
    }

    @Override
    public void awaitChange(long deadlineNanos) throws InterruptedException {
        if (!watch.hasTarget() || requests.isClosed()) {
            return;
        }
        watch.await(deadlineNanos, node.sessionId());
    }

    @Override
    public void abandon() {
        session.removeWaiter(watch);
        watch.clear();
        node.abandon();
    }
}
