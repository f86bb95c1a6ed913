package io.distlock.redis;

import io.distlock.Credentials;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.redis.core.RedisKeys;
import io.distlock.tck.TckFixture;
import io.distlock.tck.UnsupportedHookException;
import io.distlock.testing.faults.SlowReplies;
import io.distlock.testing.servers.RedisCluster;
import io.distlock.testing.servers.RedisSentinelSetup;
import io.distlock.testing.servers.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisMovedDataException;

/**
 * TCK fixture on real servers from {@code io.distlock.testing.servers}: a standalone server, a master +
 * replica watched by three Sentinels, or a 3-master Cluster. Connections of our providers are
 * recognised by their client name ({@code distlock}), so admin, replication and Sentinel connections
 * are not counted.
 *
 * <p>The Sentinel deployment requires a password ({@code requirepass} on master and replica): its
 * clients authenticate with {@link #PASSWORD}, and {@link #newClientWithWrongCredentials} presents
 * another one. The standalone and Cluster servers require none, so that hook is unsupported there.
 */
final class RedisTckFixture implements TckFixture {
    private static final RedisKeys KEYS = new RedisKeys(RedisLockOptions.DEFAULT_KEY_PREFIX);
    /** The password of the Sentinel deployment's data nodes. */
    static final String PASSWORD = "tck-Sentinel-pw-5b1e";

    private final String password; // null: the servers require none
    private final String kind;
    private final RedisServer standalone; // null unless standalone
    private final Supplier<List<RedisServer>> dataNodes; // where keys live (CLIENT LIST, DEL)
    private final List<RedisServer> allNodes; // what stopServer stops (masters and replicas)
    private final AutoCloseable resources;
    private final BiFunction<RedisLockOptions, LockOptions, RedisLockProvider> opener;
    /**
     * How the standalone fixture adjusts the options of every client it opens through a proxy
     * (identity for the others, which open no such client).
     */
    private UnaryOperator<RedisLockOptions> adjust = UnaryOperator.identity();
    /** Runs after {@link #startServer()} restarted the nodes (Sentinel: awaits replication if required). */
    private Runnable afterRestart = () -> {};

    private RedisTckFixture(
            String kind,
            String password,
            RedisServer standalone,
            Supplier<List<RedisServer>> dataNodes,
            List<RedisServer> allNodes,
            AutoCloseable resources,
            BiFunction<RedisLockOptions, LockOptions, RedisLockProvider> opener) {
        this.kind = kind;
        this.password = password;
        this.standalone = standalone;
        this.dataNodes = dataNodes;
        this.allNodes = allNodes;
        this.resources = resources;
        this.opener = opener;
    }

    static RedisTckFixture standalone() {
        return standalone(o -> o);
    }

    /** Standalone, every provider with {@link RedisLockOptions#handOff()} off. */
    static RedisTckFixture standaloneNoHandOff() {
        return standalone(o -> o.mutate().handOff(false).build());
    }

    private static RedisTckFixture standalone(UnaryOperator<RedisLockOptions> adjust) {
        RedisServer s = RedisServer.start();
        RedisTckFixture f = new RedisTckFixture(
                "standalone",
                null,
                s,
                () -> List.of(s),
                List.of(s),
                s,
                (o, lo) -> RedisLockProvider.builder()
                        .standalone(s.host(), s.port())
                        .options(adjust.apply(o))
                        .lockOptions(lo)
                        .build());
        f.adjust = adjust;
        return f;
    }

    /** Master and replica with {@link #PASSWORD}, watched by three Sentinels. */
    static RedisTckFixture sentinel() {
        return sentinel(o -> o);
    }

    /**
     * As {@link #sentinel()}, every provider waiting for the replica's acknowledgement of each
     * acquisition and renewal ({@link RedisLockOptions#requiredReplicas()} 1).
     */
    static RedisTckFixture sentinelWaitingForTheReplica() {
        return sentinel(o -> o.mutate().requiredReplicas(1).build());
    }

    private static RedisTckFixture sentinel(UnaryOperator<RedisLockOptions> adjust) {
        RedisSentinelSetup setup = RedisSentinelSetup.start(PASSWORD);
        List<String> sentinels =
                setup.sentinels().stream().map(t -> t.host() + ":" + t.port()).toList();
        RedisTckFixture f = new RedisTckFixture(
                "sentinel",
                PASSWORD,
                null,
                () -> List.of(setup.master()),
                List.of(setup.master(), setup.replica()),
                setup,
                (o, lo) -> RedisLockProvider.builder()
                        .sentinel(setup.masterName(), sentinels)
                        .options(adjust.apply(o))
                        .lockOptions(lo)
                        .build());
        if (adjust.apply(RedisLockOptions.defaults()).requiredReplicas() > 0) {
            // acquisitions need the replica's acknowledgement: the restarted replica must be
            // replicating again before the rules that follow a restart can acquire
            f.afterRestart = () -> org.awaitility.Awaitility.await("replica replicating after restart")
                    .atMost(java.time.Duration.ofSeconds(30))
                    .pollInterval(java.time.Duration.ofMillis(50))
                    .ignoreExceptions()
                    .until(() -> setup.replica().call("INFO", "replication").contains("master_link_status:up"));
        }
        return f;
    }

    static RedisTckFixture cluster() {
        RedisCluster c = RedisCluster.start(3);
        List<String> nodes =
                c.nodes().stream().map(n -> n.host() + ":" + n.port()).toList();
        return new RedisTckFixture(
                "cluster",
                null,
                null,
                c::nodes,
                c.nodes(),
                c,
                (o, lo) -> RedisLockProvider.builder()
                        .cluster(nodes)
                        .options(o)
                        .lockOptions(lo)
                        .build());
    }

    /** The standalone server. */
    RedisServer server() {
        if (standalone == null) {
            throw new IllegalStateException("not a standalone fixture");
        }
        return standalone;
    }

    /** An admin connection to the standalone server. */
    Jedis admin() {
        return new Jedis(server().host(), server().port());
    }

    /**
     * Opens a provider with full Redis options on this deployment (with the deployment's password,
     * if it has one and {@code options} give no credentials).
     */
    RedisLockProvider open(RedisLockOptions options, LockOptions lockOptions) {
        if (password != null && options.credentials().isEmpty()) {
            options =
                    options.mutate().credentials(Credentials.password(password)).build();
        }
        return opener.apply(options, lockOptions);
    }

    /** A data node connection, authenticated if the deployment has a password. */
    private Jedis admin(RedisServer server) {
        Jedis j = new Jedis(server.host(), server.port());
        if (password != null) {
            j.auth(password);
        }
        return j;
    }

    @Override
    public String backend() {
        return "redis-" + kind;
    }

    @Override
    public LockProvider newClient(LockOptions options) {
        return open(RedisLockOptions.builder().poolSize(4).build(), options);
    }

    /** A client that authenticates with a wrong password (Sentinel only: the others need none). */
    @Override
    public LockProvider newClientWithWrongCredentials(LockOptions options) {
        if (password == null) {
            return TckFixture.super.newClientWithWrongCredentials(options);
        }
        return open(
                RedisLockOptions.builder()
                        .poolSize(4)
                        .credentials(Credentials.password("wrong-" + password))
                        .build(),
                options);
    }

    /**
     * A standalone client through a proxy whose replies arrive {@code delay} late. Sentinel and Cluster
     * clients learn the servers' own addresses (from Sentinel, from the cluster's slot map) and would
     * bypass a proxy, so the hook is unsupported there.
     */
    @Override
    public LockProvider newClientWithReplyDelay(LockOptions options, Duration delay) {
        if (standalone == null) {
            throw new UnsupportedHookException(
                    "newClientWithReplyDelay",
                    "a " + kind + " client learns the servers' own addresses and would bypass a proxy");
        }
        return SlowReplies.open(List.of(standalone.host() + ":" + standalone.port()), delay, through -> {
            int colon = through.get(0).lastIndexOf(':');
            return RedisLockProvider.builder()
                    .standalone(
                            through.get(0).substring(0, colon),
                            Integer.parseInt(through.get(0).substring(colon + 1)))
                    .options(adjust.apply(RedisLockOptions.builder().poolSize(4).build()))
                    .lockOptions(options)
                    .build();
        });
    }

    /** Commands the data nodes served to clients ({@link RedisServer#clientCommandCalls()}, summed). */
    @Override
    public long serverRequestCount() {
        long n = 0;
        for (RedisServer s : dataNodes.get()) {
            try {
                n += s.clientCommandCalls();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return n;
    }

    @Override
    public void expireLease(String lockName) {
        String key = KEYS.lockKey(lockName);
        for (RedisServer n : dataNodes.get()) {
            try (Jedis j = admin(n)) {
                j.del(key);
            } catch (JedisMovedDataException otherNode) {
                // Cluster: the key lives on another master
            }
        }
    }

    /** The error replies every data node has sent ({@code INFO errorstats}), one {@code errorstat_…} line each. */
    List<String> errorStats() {
        List<String> lines = new java.util.ArrayList<>();
        for (RedisServer n : dataNodes.get()) {
            try (Jedis j = admin(n)) {
                for (String line : j.info("errorstats").split("\n")) {
                    if (line.startsWith("errorstat_")) {
                        lines.add(n.port() + ": " + line.trim());
                    }
                }
            }
        }
        return lines;
    }

    @Override
    public int serverConnectionCount() {
        int n = 0;
        for (RedisServer s : dataNodes.get()) {
            try (Jedis j = admin(s)) {
                for (String line : j.clientList().split("\n")) {
                    if (line.contains(" name=distlock ")) {
                        n++;
                    }
                }
            }
        }
        return n;
    }

    /**
     * Stops every data node (Sentinel: master and replica, so there is nothing to fail over to;
     * Cluster: all masters). The Sentinels stay up.
     */
    @Override
    public void stopServer() {
        allNodes.forEach(RedisServer::kill);
    }

    /** Starts the data nodes again on the same ports, with their directories (Cluster: nodes.conf). */
    @Override
    public void startServer() {
        allNodes.forEach(n -> n.restart(true));
        if (kind.equals("cluster")) {
            org.awaitility.Awaitility.await("cluster state ok after restart")
                    .atMost(java.time.Duration.ofSeconds(20))
                    .pollInterval(java.time.Duration.ofMillis(50))
                    .ignoreExceptions()
                    .until(() -> allNodes.stream().allMatch(n -> {
                        try (Jedis j = new Jedis(n.host(), n.port())) {
                            return j.clusterInfo().contains("cluster_state:ok");
                        }
                    }));
        }
        afterRestart.run();
    }

    @Override
    public void close() {
        try {
            resources.close();
        } catch (Exception e) {
            throw new IllegalStateException("could not stop the Redis servers", e);
        }
    }
}
