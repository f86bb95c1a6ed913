package io.distlock.nemesis;

import io.distlock.testing.faults.Fault;
import io.distlock.testing.faults.Faults;
import io.distlock.testing.faults.TcpProxy;
import io.distlock.testing.servers.EtcdCluster;
import io.distlock.testing.servers.RedisSentinelSetup;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import io.distlock.testing.servers.TestServer;
import io.distlock.testing.servers.ZooKeeperEnsemble;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The servers of one backend under test, and how clients reach them: every client connects to
 * every server through its own {@link TcpProxy}, so one client can be partitioned alone.
 */
abstract class Topology implements AutoCloseable {
    private final Map<String, List<TcpProxy>> proxies = new ConcurrentHashMap<>();
    protected final long leaseMs;

    Topology(long leaseMs) {
        this.leaseMs = leaseMs;
    }

    /** The backend's name in reports: redis, redis-sentinel, redlock, zookeeper, etcd, mysql, postgresql. */
    abstract String name();

    /** What runs, in one line (for reports). */
    abstract String describe();

    /** The faults that apply here, in the order the smoke profile runs them. */
    abstract List<FaultKind> faults();

    /** {@code host:port} of every server node, stable across restarts. */
    abstract List<String> nodes();

    /** The provider URI for clients reaching the nodes at {@code addresses}. */
    abstract String uri(List<String> addresses);

    /** Whether clients go through proxies (a Sentinel setup's data node address comes from Sentinel). */
    boolean proxied() {
        return true;
    }

    /**
     * Prepares {@code kind} before a holder is chosen; returns the time from which an acquisition
     * counts as made under the prepared conditions.
     */
    long prepare(FaultKind kind) {
        return Long.MIN_VALUE;
    }

    /** What {@code kind} does here, in one line (for reports). */
    String describe(FaultKind kind) {
        return kind.description();
    }

    /** Whether {@code kind} can run again on the same servers (a Sentinel failover leaves no replica). */
    boolean repeatable(FaultKind kind) {
        return kind != FaultKind.REDIS_FAILOVER;
    }

    /** Injects a server-side fault; the returned fault undoes it on close. */
    Fault serverFault(FaultKind kind, Duration duration) {
        throw new IllegalArgumentException("fault " + kind + " does not apply to " + name());
    }

    /** The URI for a new client {@code clientId}, through new proxies. */
    final String clientUri(String clientId) {
        if (!proxied()) {
            return uri(nodes());
        }
        List<TcpProxy> mine = new ArrayList<>();
        List<String> addresses = new ArrayList<>();
        for (String node : nodes()) {
            int colon = node.lastIndexOf(':');
            TcpProxy p = TcpProxy.start(node.substring(0, colon), Integer.parseInt(node.substring(colon + 1)));
            mine.add(p);
            addresses.add(p.address());
        }
        proxies.put(clientId, mine);
        return uri(addresses);
    }

    /** The proxies of one client (empty if not proxied). */
    final List<TcpProxy> proxiesOf(String clientId) {
        return proxies.getOrDefault(clientId, List.of());
    }

    /** Every client's proxies. */
    final List<TcpProxy> allProxies() {
        return proxies.values().stream().flatMap(List::stream).toList();
    }

    /** Closes the proxies of a client that is gone. */
    final void dropClient(String clientId) {
        List<TcpProxy> mine = proxies.remove(clientId);
        if (mine != null) {
            mine.forEach(TcpProxy::close);
        }
    }

    protected abstract void closeServers();

    @Override
    public final void close() {
        proxies.keySet().forEach(this::dropClient);
        closeServers();
    }

    static String lease(long ms) {
        return ms + "ms";
    }

    static Topology open(String backend, long leaseMs) {
        return switch (backend) {
            case "redis" -> new Redis(leaseMs);
            case "redis-sentinel" -> new Sentinel(leaseMs);
            case "redlock" -> new Redlock(leaseMs);
            case "zookeeper" -> new ZooKeeper(leaseMs);
            case "etcd" -> new Etcd(leaseMs);
            case "mysql" -> new MySqlTopology(leaseMs);
            case "postgresql" -> new PostgresTopology(leaseMs);
            default ->
                throw new IllegalArgumentException("backend must be one of " + BACKENDS + " (was '" + backend + "')");
        };
    }

    static final List<String> BACKENDS =
            List.of("redis", "redis-sentinel", "redlock", "zookeeper", "etcd", "mysql", "postgresql");

    private static final List<FaultKind> CLIENT_FAULTS = List.of(
            FaultKind.PAUSE_HOLDER,
            FaultKind.KILL_HOLDER,
            FaultKind.PARTITION_HOLDER,
            FaultKind.RESET_CONNECTIONS,
            FaultKind.LATENCY);

    /** The faults every backend gets, then {@code more}. */
    static List<FaultKind> with(FaultKind... more) {
        List<FaultKind> l = new ArrayList<>(CLIENT_FAULTS);
        l.addAll(List.of(more));
        return List.copyOf(l);
    }

    /** Single Redis with AOF (appendfsync always), so "restart with data" keeps it. */
    static final class Redis extends Topology {
        private final RedisServer server = RedisServer.builder().durable(true).start();

        Redis(long leaseMs) {
            super(leaseMs);
        }

        @Override
        String name() {
            return "redis";
        }

        @Override
        String describe() {
            return "1 redis-server with AOF (appendfsync always)";
        }

        @Override
        List<FaultKind> faults() {
            return with(FaultKind.RESTART_SERVER_KEEP_DATA, FaultKind.RESTART_SERVER_LOSE_DATA);
        }

        @Override
        List<String> nodes() {
            return List.of(server.address());
        }

        @Override
        String uri(List<String> a) {
            return "redis://" + a.get(0) + "?leaseTime=" + lease(leaseMs);
        }

        @Override
        Fault serverFault(FaultKind kind, Duration d) {
            return switch (kind) {
                case RESTART_SERVER_KEEP_DATA -> Faults.kill(server, true, d);
                case RESTART_SERVER_LOSE_DATA ->
                    Fault.inject("restart-lose-data-" + server.port(), () -> server.restart(false), () -> {}, d);
                default -> super.serverFault(kind, d);
            };
        }

        @Override
        protected void closeServers() {
            server.close();
        }
    }

    /**
     * Redis master + replica + 3 Sentinels; clients find the master through Sentinel. Each client
     * reaches the Sentinels and both data nodes through its own proxies: a Jedis address mapper
     * ({@link MappedSentinel}) turns the address Sentinel names into the client's proxy for it.
     */
    static final class Sentinel extends Topology {
        private final RedisSentinelSetup setup = RedisSentinelSetup.start();
        private final String master = setup.master().address();
        private final String replica = setup.replica().address();

        Sentinel(long leaseMs) {
            // failover takes longer than a short lease (down-after 1 s + election): with a short
            // lease every holder's belief ends before the replica is promoted
            super(Math.max(leaseMs, 10_000));
        }

        /**
         * Detaches the replica before the next acquisition, so the lock key of that acquisition is
         * on the master only, as when asynchronous replication lags: a wrong {@code masterauth}
         * keeps the replica from reconnecting after its link is cut. Sentinel promotes it anyway.
         */
        @Override
        long prepare(FaultKind kind) {
            try {
                setup.replica().call("CONFIG", "SET", "masterauth", "nemesis-detached");
                setup.replica().call("CLIENT", "KILL", "TYPE", "master");
                if (!setup.replica().call("INFO", "replication").contains("master_link_status:down")) {
                    throw new IllegalStateException("the replica's link to its master is still up");
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot detach the replica", e);
            }
            // an acquisition that returns this much later was sent after the link was cut
            return System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(300);
        }

        @Override
        String name() {
            return "redis-sentinel";
        }

        @Override
        String describe() {
            return "Redis master + 1 replica + 3 Sentinels (asynchronous replication, no WAIT); the replica's link is"
                    + " cut just before the failover (replication lag)";
        }

        @Override
        List<FaultKind> faults() {
            return with(FaultKind.REDIS_FAILOVER);
        }

        /** The Sentinels, then the master and the replica. */
        @Override
        List<String> nodes() {
            List<String> n = new ArrayList<>(List.of(setup.sentinelAddresses().split(",")));
            n.add(master);
            n.add(replica);
            return List.copyOf(n);
        }

        @Override
        String uri(List<String> a) {
            int s = a.size() - 2;
            return "redis-sentinel://" + String.join(",", a.subList(0, s)) + "/" + setup.masterName() + "?leaseTime="
                    + lease(leaseMs) + MappedSentinel.MARK + master + ">" + a.get(s) + "," + replica + ">"
                    + a.get(s + 1);
        }

        @Override
        Fault serverFault(FaultKind kind, Duration d) {
            if (kind != FaultKind.REDIS_FAILOVER) {
                return super.serverFault(kind, d);
            }
            // the old master stays dead (a restarted one would come back as a replica of the new one)
            return Fault.inject("redis-failover", () -> setup.failover(), () -> {}, d);
        }

        @Override
        protected void closeServers() {
            setup.close();
        }
    }

    /** 3 independent Redis masters without persistence. */
    static final class Redlock extends Topology {
        private final RedisServers servers = RedisServers.independentMasters(3);

        Redlock(long leaseMs) {
            super(leaseMs);
        }

        @Override
        String name() {
            return "redlock";
        }

        @Override
        String describe() {
            return "3 independent redis-server masters without persistence";
        }

        @Override
        List<FaultKind> faults() {
            return with(FaultKind.KILL_ONE_NODE, FaultKind.KILL_TWO_NODES, FaultKind.RESTART_NODES_WITHOUT_DATA);
        }

        @Override
        List<String> nodes() {
            return List.of(servers.addresses().split(","));
        }

        @Override
        String uri(List<String> a) {
            return "redlock://" + String.join(",", a) + "?leaseTime=" + lease(leaseMs);
        }

        @Override
        Fault serverFault(FaultKind kind, Duration d) {
            return switch (kind) {
                case KILL_ONE_NODE -> Faults.kill(servers.get(0), false, d);
                case KILL_TWO_NODES ->
                    Fault.inject(
                            "kill-two-nodes",
                            () -> {
                                servers.get(0).kill();
                                servers.get(1).kill();
                            },
                            () -> {
                                servers.get(0).restart(false);
                                servers.get(1).restart(false);
                            },
                            d);
                case RESTART_NODES_WITHOUT_DATA ->
                    Fault.inject(
                            "restart-nodes-without-data",
                            () -> {
                                servers.get(0).restart(false);
                                servers.get(1).restart(false);
                            },
                            () -> {},
                            d);
                default -> super.serverFault(kind, d);
            };
        }

        @Override
        protected void closeServers() {
            servers.close();
        }
    }

    /** A 3-server ZooKeeper ensemble. */
    static final class ZooKeeper extends Topology {
        private final ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.start(3);

        ZooKeeper(long leaseMs) {
            super(leaseMs);
        }

        @Override
        String name() {
            return "zookeeper";
        }

        @Override
        String describe() {
            return "3-server ZooKeeper ensemble";
        }

        @Override
        List<FaultKind> faults() {
            return with(FaultKind.KILL_LEADER, FaultKind.RESTART_MEMBER_LOSE_DATA);
        }

        @Override
        List<String> nodes() {
            return List.of(ensemble.connectString().split(","));
        }

        @Override
        String uri(List<String> a) {
            return "zookeeper://" + String.join(",", a) + "?sessionTimeout=" + lease(leaseMs) + "&connectTimeout="
                    + lease(leaseMs);
        }

        @Override
        Fault serverFault(FaultKind kind, Duration d) {
            if (kind != FaultKind.KILL_LEADER && kind != FaultKind.RESTART_MEMBER_LOSE_DATA) {
                return super.serverFault(kind, d);
            }
            TestServer leader = ensemble.awaitLeader(Duration.ofSeconds(20));
            // without its data the member comes back with the same id and resyncs from the new leader
            return Faults.kill(leader, kind == FaultKind.KILL_LEADER, d);
        }

        @Override
        protected void closeServers() {
            ensemble.close();
        }
    }

    /** A 3-member etcd cluster. */
    static final class Etcd extends Topology {
        private final EtcdCluster cluster = EtcdCluster.start(3);
        /** Member restarts without data so far: even ones hit the leader, odd ones a follower. */
        private int memberRestarts;

        private volatile String lastMemberTarget = "the leader";

        Etcd(long leaseMs) {
            super(leaseMs);
        }

        @Override
        String name() {
            return "etcd";
        }

        @Override
        String describe() {
            return "3-member etcd cluster";
        }

        /** The member restart without data twice per cycle: the leader, then a follower. */
        @Override
        List<FaultKind> faults() {
            return with(FaultKind.KILL_LEADER, FaultKind.RESTART_MEMBER_LOSE_DATA, FaultKind.RESTART_MEMBER_LOSE_DATA);
        }

        @Override
        String describe(FaultKind kind) {
            return kind == FaultKind.RESTART_MEMBER_LOSE_DATA
                    ? lastMemberTarget + " of the 3-member cluster SIGKILLed, its data directory wiped,"
                            + " `member remove` + `member add`, restarted empty with `--initial-cluster-state"
                            + " existing` (new member id) and caught up from the leader"
                    : kind.description();
        }

        @Override
        List<String> nodes() {
            return List.of(cluster.addresses().split(","));
        }

        @Override
        String uri(List<String> a) {
            return "etcd://" + String.join(",", a) + "?leaseTime=" + lease(leaseMs) + "&requestTimeout="
                    + lease(leaseMs);
        }

        @Override
        Fault serverFault(FaultKind kind, Duration d) {
            if (kind != FaultKind.KILL_LEADER && kind != FaultKind.RESTART_MEMBER_LOSE_DATA) {
                return super.serverFault(kind, d);
            }
            TestServer leader = cluster.awaitLeader(Duration.ofSeconds(20));
            if (kind == FaultKind.KILL_LEADER) {
                return Faults.kill(leader, true, d);
            }
            boolean toLeader = memberRestarts++ % 2 == 0;
            TestServer target = toLeader
                    ? leader
                    : cluster.members().stream()
                            .filter(m -> m != leader)
                            .findFirst()
                            .orElseThrow();
            lastMemberTarget = toLeader ? "the leader" : "a follower";
            // restart(false) on a cluster member: removed, re-added, started empty, caught up
            return Faults.kill(target, false, d);
        }

        @Override
        protected void closeServers() {
            cluster.close();
        }
    }
}
