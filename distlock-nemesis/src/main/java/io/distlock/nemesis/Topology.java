package io.distlock.nemesis;

import io.distlock.testing.faults.Fault;
import io.distlock.testing.faults.TcpProxy;
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

    /**
     * The backend's name in reports: redis, redis-sentinel, redis-cluster, redlock, zookeeper, etcd, mysql,
     * postgresql.
     */
    abstract String name();

    /** What runs, in one line (for reports). */
    abstract String describe();

    /** The faults that apply here, in the order the smoke profile runs them. */
    abstract List<FaultKind> faults();

    /** {@code host:port} of every server node, stable across restarts. */
    abstract List<String> nodes();

    /** The provider URI for clients reaching the nodes at {@code addresses}. */
    abstract String uri(List<String> addresses);

    /**
     * The server processes, as the soak samples them every minute (resident memory, client
     * connections as the server counts them). By default the processes listening on {@link #nodes()}'
     * ports and their established TCP connections; a backend with a statistic of its own overrides it.
     */
    List<ServerProbe> probes() {
        return ServerProbe.byPorts(nodes());
    }

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

    /** The one lock name every client of this backend contends for. */
    final String lockName() {
        return "nemesis-" + name();
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
            case "redis" -> new RedisTopology(leaseMs);
            case "redis-sentinel" -> new SentinelTopology(leaseMs);
            case "redis-cluster" -> new ClusterTopology(leaseMs);
            case "redlock" -> new RedlockTopology(leaseMs);
            case "zookeeper" -> new ZooKeeperTopology(leaseMs);
            case "etcd" -> new EtcdTopology(leaseMs);
            case "mysql" -> new MySqlTopology(leaseMs);
            case "postgresql" -> new PostgresTopology(leaseMs);
            default ->
                throw new IllegalArgumentException("backend must be one of " + BACKENDS + " (was '" + backend + "')");
        };
    }

    static final List<String> BACKENDS =
            List.of("redis", "redis-sentinel", "redis-cluster", "redlock", "zookeeper", "etcd", "mysql", "postgresql");

    private static final List<FaultKind> CLIENT_FAULTS = List.of(
            FaultKind.PAUSE_HOLDER,
            FaultKind.KILL_HOLDER,
            FaultKind.PARTITION_HOLDER,
            FaultKind.RESET_CONNECTIONS,
            FaultKind.LATENCY);

    /** The faults every backend gets (pause, kill, partition, reset, latency), then {@code more}. */
    static List<FaultKind> clientFaultsAnd(FaultKind... more) {
        List<FaultKind> l = new ArrayList<>(CLIENT_FAULTS);
        l.addAll(List.of(more));
        return List.copyOf(l);
    }
}
