package io.distlock.zookeeper;

import io.distlock.Capabilities;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.spi.FaultHooks;
import io.distlock.spi.LockEngine;
import io.distlock.zookeeper.internal.ZkClients;
import io.distlock.zookeeper.internal.ZkDriver;
import io.distlock.zookeeper.internal.ZkInternals;
import io.distlock.zookeeper.internal.ZkPathRules;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.data.ACL;

/**
 * Distributed locks on ZooKeeper ({@code zookeeper://host1:2181,host2:2181/chroot}): each contender
 * adds an ephemeral-sequential node under the lock's container node; the lowest sequence holds the
 * lock, every other contender watches only its immediate predecessor, so a release wakes exactly
 * one waiter, in FIFO order.
 *
 * <p><b>Guarantees.</b> The fencing token is the czxid of the holder's node: it strictly increases
 * from one holder of a lock to the next, survives server restarts and leader elections (zxids are
 * persisted), and is unique across all locks of the ensemble. A held lock stays held as long as the
 * ZooKeeper session lives; a quorum loss or leader election does not release it.
 *
 * <p><b>Limits.</b> A lease is only as valid as the session: its deadline is {@code sendTime +
 * negotiatedSessionTimeout - margin} of the last request the server answered on the session (one
 * keepalive request per client every fifth of the session timeout moves it forward). When the
 * connection is suspended the deadline stops moving, so the client stops believing it holds the lock
 * before the server can expire the session and grant it to someone else; if the session is lost, the
 * lease is lost and {@link Lease#lost()} completes. A reconnect within the session extends validity
 * again only after the client verified that its node still exists and is owned by its session. A
 * process that stalls (GC pause, SIGSTOP) past its deadline cannot notice in time — protect the
 * resource with the fencing token.
 *
 * <p><b>Lease times are kept by the client</b> ({@link Capabilities.LeaseTiming#CLIENT}): a lock
 * lives as long as the session, whose timeout ({@link ZooKeeperLockOptions#sessionTimeout()},
 * by default the provider's lease time) is what a crashed holder keeps it for. A lease's own time
 * — a handle's {@link DistributedLock#withLeaseTime lease time} without {@link
 * DistributedLock#withAutoRenew renewal}, an {@link Lease#extend extension} — ends the lease on
 * the client, which then deletes its node; with renewal a lease lasts as long as the session. {@link
 * Lease#releaseAfter} keeps the node until the delay has passed, then deletes it; if the holder
 * dies first, the lock is free when its session expires. {@code autoRenew=false} ends every lease
 * at its lease time ({@link Capabilities#automaticRenewal()} is then {@code false}).
 *
 * <p><b>Errors.</b> Missing permissions (a {@code NoAuth} from an ACL, which is also what wrong
 * digest credentials get) and a TLS trust that does not accept the servers are {@link
 * io.distlock.LockConfigurationException}s, thrown at once; an unreachable ensemble is a {@link
 * io.distlock.BackendUnavailableException}, retried within the caller's wait.
 *
 * <pre>{@code
 * try (ZooKeeperLockProvider locks = ZooKeeperLockProvider.builder()
 *         .connectString("zk1:2181,zk2:2181,zk3:2181")
 *         .build()) {
 *     try (Lease lease = locks.lock("invoice-42").acquire()) {
 *         guard.write(lease.fencingToken().getAsLong(), ...);
 *     }
 * }
 * }</pre>
 */
public final class ZooKeeperLockProvider implements LockProvider {
    private final LockEngine engine;
    private final ZkDriver driver;
    private final ZooKeeperLockOptions options;
    private final String description;

    private ZooKeeperLockProvider(Builder b) {
        if ((b.connectString == null) == (b.curator == null)) {
            throw new IllegalArgumentException(
                    b.curator == null
                            ? "connectString or curator must be set"
                            : "connectString and curator are exclusive: set one of them");
        }
        ZooKeeperLockOptions o = b.options;
        LockOptions lockOptions = b.lockOptions;
        Duration sessionTimeout = o.sessionTimeout().orElse(lockOptions.leaseTime());
        Duration connectTimeout = o.connectTimeout(sessionTimeout);
        List<ACL> acl = o.credentials().map(ZkClients::acl).orElse(null);
        boolean owns = b.curator == null;
        CuratorFramework client;
        if (owns) {
            client = ZkClients.newClient(
                    b.connectString,
                    sessionTimeout,
                    connectTimeout,
                    o.credentials().orElse(null),
                    o.tls());
        } else {
            if (o.tls().isEnabled()) {
                throw new IllegalArgumentException(
                        "tls applies only to a client the provider creates: configure TLS on the given CuratorFramework");
            }
            if (b.curator.getState() != CuratorFrameworkState.STARTED) {
                throw new IllegalArgumentException(
                        "curator client must be started (state was " + b.curator.getState() + ")");
            }
            client = b.curator;
        }
        this.options = o;
        this.description = "ZooKeeperLockProvider{" + (owns ? "connectString=" + b.connectString : "given curator")
                + ", " + o + ", " + lockOptions + '}';
        this.driver = new ZkDriver(client, owns, o.rootPath(), acl, lockOptions, sessionTimeout, connectTimeout);
        this.engine = LockEngine.create(driver, lockOptions);
    }

    /** A builder: an address ({@code connectString} or {@code curator}), then optional settings. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public DistributedLock lock(String name) {
        return engine.lock(name);
    }

    @Override
    public Capabilities capabilities() {
        return engine.capabilities();
    }

    @Override
    public String backend() {
        return engine.backend();
    }

    @Override
    public List<Lease> heldLeases() {
        return engine.heldLeases();
    }

    /** The ZooKeeper options this provider runs with. */
    public ZooKeeperLockOptions options() {
        return options;
    }

    /**
     * Also offers {@link FaultHooks}: {@code simulateCrash()} drops the connection without closing
     * the session (the server removes this client's nodes only when the session times out, as for a
     * frozen or killed process) and reports its leases lost; with a client given to the builder,
     * only the provider is abandoned. And, for tests and benchmarks, {@link ZkInternals}.
     */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        if (type == FaultHooks.class) {
            return Optional.of(type.cast(engine.faultHooks(driver::crashOnClose)));
        }
        if (type == ZkInternals.class) {
            return Optional.of(type.cast(driver));
        }
        return LockProvider.super.unwrap(type);
    }

    /** For tests in this package: the inside of the provider. */
    ZkInternals internals() {
        return driver;
    }

    /**
     * Releases held leases, wakes waiters, and closes the Curator client if the provider created
     * it (a client given to the builder stays open).
     */
    @Override
    public void close() {
        engine.close();
    }

    @Override
    public String toString() {
        return description;
    }

    /**
     * Builder for {@link ZooKeeperLockProvider}: where the ensemble is ({@link #connectString} or
     * {@link #curator}, exactly one), the ZooKeeper {@link #options}, and the common {@link
     * #lockOptions}.
     */
    public static final class Builder {
        private String connectString;
        private CuratorFramework curator;
        private ZooKeeperLockOptions options = ZooKeeperLockOptions.defaults();
        private LockOptions lockOptions = LockOptions.defaults();

        private Builder() {}

        /**
         * {@code host:port[,host:port...][/chroot]}: the provider builds (and closes) its own
         * Curator client. A chroot becomes Curator's namespace, created when missing.
         *
         * @throws IllegalArgumentException unless hosts are non-empty and ports in 1..65535
         */
        public Builder connectString(String connectString) {
            this.connectString = ZkPathRules.checkConnectString(connectString);
            return this;
        }

        /**
         * Uses an existing, started client instead of building one. The provider does not close it;
         * its session timeout, TLS and authentication are the client's (with {@link
         * ZooKeeperLockOptions.Builder#credentials credentials} set, nodes still get their ACL, so
         * the client must be authenticated as that identity).
         */
        public Builder curator(CuratorFramework curator) {
            this.curator = Objects.requireNonNull(curator, "curator must not be null");
            return this;
        }

        /** The ZooKeeper settings; {@link ZooKeeperLockOptions#defaults()} unless set. */
        public Builder options(ZooKeeperLockOptions options) {
            this.options = Objects.requireNonNull(options, "options must not be null");
            return this;
        }

        /** The lease settings shared by all backends; {@link LockOptions#defaults()} unless set. */
        public Builder lockOptions(LockOptions lockOptions) {
            this.lockOptions = Objects.requireNonNull(lockOptions, "lockOptions must not be null");
            return this;
        }

        /** Shortcut for {@code lockOptions(lockOptions.mutate().leaseTime(leaseTime).build())}. */
        public Builder leaseTime(Duration leaseTime) {
            this.lockOptions = lockOptions.mutate().leaseTime(leaseTime).build();
            return this;
        }

        /**
         * Opens the provider: with a connect string, builds its client and waits for a session
         * (at most the connect timeout).
         *
         * @throws IllegalArgumentException without an address, with both, or with TLS on a given client
         * @throws io.distlock.LockConfigurationException if the TLS trust does not accept the servers
         * @throws io.distlock.BackendUnavailableException if no session could be opened in time
         */
        public ZooKeeperLockProvider build() {
            return new ZooKeeperLockProvider(this);
        }
    }
}
