package io.distlock.zookeeper.internal;

import io.distlock.Capabilities;
import io.distlock.LockNames;
import io.distlock.LockOptions;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.LockDriver;
import io.distlock.spi.RenewalMode;
import java.time.Duration;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Driver of the ZooKeeper provider: ties the {@link ZkRequests requests}, the {@link ZkSession
 * session} and its {@link ZkKeepalive keepalive} to the shared engine. Internal API: the public
 * entry point is {@code io.distlock.zookeeper.ZooKeeperLockProvider}.
 *
 * <p>Each lock is a container node {@code <root>/<LockNames.encode(name)>}; each contender adds a
 * protected ephemeral-sequential child ({@link QueueNode}); the lowest sequence holds the lock and
 * every other contender watches only its immediate predecessor ({@link PredecessorWatch}). The
 * fencing token is the holder node's czxid. Leases live as long as the session ({@link
 * RenewalMode#SESSION}), so lease times are the client's ({@link Capabilities.LeaseTiming#CLIENT}):
 * the engine ends a lease at its own time (a handle's lease time without renewal, an extension)
 * and releases it, and keeps a delayed release ({@code releaseAfter}) with its timer; a crashed
 * holder keeps the lock until the server expires its session. With {@code autoRenew=false} the
 * engine reports {@code automaticRenewal=false}.
 */
public final class ZkDriver implements LockDriver, ZkInternals {
    static final Capabilities CAPABILITIES = Capabilities.builder()
            .fencing(Capabilities.Fencing.GLOBALLY_MONOTONIC)
            .fencingSurvivesServerRestart(true)
            .automaticRenewal(true)
            .wakeUp(Capabilities.WakeUp.NOTIFICATION)
            .fifo(true)
            .reentrant(false)
            .failover(Capabilities.Failover.HELD_LOCKS_SURVIVE)
            .leaseTiming(Capabilities.LeaseTiming.CLIENT)
            .build();

    private static final Logger log = LoggerFactory.getLogger(ZkDriver.class);

    private final CuratorFramework client;
    private final boolean ownsClient;
    private final String root;
    final ZkCounters counters = new ZkCounters();
    final QueueNodeNames names = new QueueNodeNames();
    final MultiCreateHint hint = new MultiCreateHint();
    final ZkRequests requests;
    final ZkSession session;
    final ZkKeepalive keepalive;
    private volatile boolean crashOnClose;

    /**
     * @param client a started client
     * @param ownsClient whether {@link #close()} closes the client
     * @param root validated absolute root path
     * @param acl ACL for created nodes, or {@code null} for the client's default
     * @param sessionTimeout the session timeout requested (used until the negotiated one is known)
     * @param connectTimeout how long the client waits for a connection
     */
    public ZkDriver(
            CuratorFramework client,
            boolean ownsClient,
            String root,
            List<ACL> acl,
            LockOptions lockOptions,
            Duration sessionTimeout,
            Duration connectTimeout) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.root = root.equals("/") ? "" : root;
        // the longest wait for one background reply: Curator's own retries wait for a connection
        // (connectTimeout each) and give up once the session is gone
        long operationTimeoutNanos = 2 * connectTimeout.toNanos() + sessionTimeout.toNanos();
        this.requests = new ZkRequests(client, ownsClient, acl, lockOptions.ticker(), operationTimeoutNanos, counters);
        this.session = new ZkSession(requests, lockOptions, sessionTimeout);
        this.keepalive = new ZkKeepalive(requests, session);
        session.start();
    }

    @Override
    public String backend() {
        return ZkErrors.BACKEND;
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public RenewalMode renewalMode() {
        return RenewalMode.SESSION;
    }

    @Override
    public Contender contender(AcquireContext ctx) {
        return new ZkContender(this, ctx, lockPath(ctx.lockName()));
    }

    @Override
    public String lockPath(String lockName) {
        return root + "/" + LockNames.encode(lockName);
    }

    @Override
    public CuratorFramework curator() {
        return client;
    }

    @Override
    public Duration sessionTimeout() {
        return session.sessionTimeout();
    }

    @Override
    public ZkCounters counters() {
        return counters;
    }

    @Override
    public void disableMultiCreate() {
        hint.refuseMulti();
    }

    /** On the next {@link #close()}, drop the connection without closing the session (a crash). */
    public void crashOnClose() {
        crashOnClose = true;
    }

    @Override
    public void close() {
        requests.close();
        keepalive.close();
        session.stop();
        if (!ownsClient) {
            return;
        }
        if (crashOnClose) {
            try {
                ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
                // Curator must not see the injected expiry: it would close the handle (sending a
                // closeSession) before the injection marks it closed
                zk.register(event -> {});
                // drops the connection without a closeSession request: the server expires the
                // session after its timeout, as it would for a killed process
                zk.getTestable().injectSessionExpiration();
            } catch (Exception e) {
                log.debug("distlock.zookeeper.crash_injection_failed", e);
            }
        }
        client.close();
    }
}
