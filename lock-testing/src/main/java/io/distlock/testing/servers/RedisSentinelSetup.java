package io.distlock.testing.servers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A Redis master with one replica, watched by three sentinels (quorum 2, {@code
 * down-after-milliseconds} 1000, {@code failover-timeout} 5000), all local test-speed processes.
 *
 * <pre>{@code
 * try (RedisSentinelSetup s = RedisSentinelSetup.start()) {
 *     LockProviders.open("redis-sentinel://" + s.sentinelAddresses() + "/" + s.masterName());
 *     s.failover();   // kills the master; returns when a sentinel reports the replica promoted
 * }
 * }</pre>
 *
 * Replication is asynchronous: a write acknowledged by the master just before it dies may be
 * missing on the promoted replica — the failover case this setup exists to test.
 */
public final class RedisSentinelSetup implements AutoCloseable {
    /** The name the sentinels monitor the master under. */
    public static final String MASTER_NAME = "distlock-master";

    private final RedisServer first;
    private final RedisServer second;
    private final List<TestServer> sentinels;
    private final Probes.RedisAccess sentinelAccess;
    private volatile RedisServer master;

    private RedisSentinelSetup(
            RedisServer master, RedisServer replica, List<TestServer> sentinels, Probes.RedisAccess sentinelAccess) {
        this.first = master;
        this.second = replica;
        this.master = master;
        this.sentinels = List.copyOf(sentinels);
        this.sentinelAccess = sentinelAccess;
    }

    /** Starts the master, the replica (in sync) and the sentinels (each knowing the others). */
    public static RedisSentinelSetup start() {
        return start(null);
    }

    /**
     * Like {@link #start()}, but master and replica require {@code password} for the {@code
     * default} user ({@code requirepass}, and {@code masterauth} for replication in both directions),
     * and the sentinels authenticate to them with it ({@code sentinel auth-pass}). The sentinels
     * themselves need no password. {@code null}: no password.
     */
    public static RedisSentinelSetup start(String password) {
        return start(password, null);
    }

    /**
     * Like {@link #start(String)}, and with {@code tls} not null every process speaks TLS only:
     * master and replica as {@link RedisServer.Builder#tls(TestCertificates)} with {@code
     * tls-replication yes} (replication over TLS), the sentinels with {@code port 0}, a {@code
     * tls-port}, the server certificate of {@code tls}, {@code tls-replication yes} (they reach the
     * data nodes over TLS and announce their TLS port) and no client certificates. Addresses are
     * {@code 127.0.0.1}, which the test certificate names.
     */
    public static RedisSentinelSetup start(String password, TestCertificates tls) {
        List<AutoCloseable> started = new ArrayList<>();
        try {
            RedisServer.Builder masterBuilder = RedisServer.builder().local().kind("redis-master");
            RedisServer.Builder replicaBuilder = RedisServer.builder().local().kind("redis-replica");
            if (password != null) {
                masterBuilder.password(password).args("--masterauth", password);
                replicaBuilder.password(password).args("--masterauth", password);
            }
            if (tls != null) {
                masterBuilder.tls(tls).args("--tls-replication", "yes");
                replicaBuilder.tls(tls).args("--tls-replication", "yes");
            }
            Probes.RedisAccess sentinelAccess = tls == null
                    ? Probes.RedisAccess.PLAIN
                    : new Probes.RedisAccess(tls.clientSocketFactory(), null, null);
            RedisServer master = masterBuilder.start();
            started.add(master);
            RedisServer replica = replicaBuilder
                    .args("--replicaof", master.host(), Integer.toString(master.port()))
                    .start();
            started.add(replica);
            Probes.await(
                    "replica " + replica.address() + " in sync",
                    Duration.ofSeconds(20),
                    null,
                    () -> replica.call("INFO", "replication").contains("master_link_status:up"));
            Path binary = Binaries.require("redis-sentinel", "redis-sentinel", "/usr/bin/redis-sentinel");
            List<TestServer> sentinels = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                TestServer s = sentinel(binary, master.port(), password, tls);
                started.add(s);
                sentinels.add(s);
            }
            RedisSentinelSetup setup = new RedisSentinelSetup(master, replica, sentinels, sentinelAccess);
            for (TestServer s : sentinels) {
                Probes.await(
                        "sentinel " + s.address() + " to know the replica and 2 other sentinels",
                        Duration.ofSeconds(30),
                        null,
                        () -> {
                            Object replicas = Probes.redis(
                                    sentinelAccess, s.host(), s.port(), "SENTINEL", "REPLICAS", MASTER_NAME);
                            Object others = Probes.redis(
                                    sentinelAccess, s.host(), s.port(), "SENTINEL", "SENTINELS", MASTER_NAME);
                            return replicas instanceof List
                                    && ((List<?>) replicas).size() == 1
                                    && others instanceof List
                                    && ((List<?>) others).size() == 2;
                        });
            }
            return setup;
        } catch (RuntimeException e) {
            started.forEach(c -> RedisServers.closeQuietly(c, e));
            throw e;
        }
    }

    /**
     * One supervised sentinel watching the master at {@code 127.0.0.1:masterPort} under {@link
     * #MASTER_NAME} (quorum 2, {@code down-after-milliseconds} 1000, {@code failover-timeout} 5000),
     * for tests that build their own master and replica — for example with the replication link
     * behind a {@code TcpProxy}. Start three for a quorum; they find each other through the master.
     */
    public static TestServer startSentinel(int masterPort) {
        return sentinel(
                Binaries.require("redis-sentinel", "redis-sentinel", "/usr/bin/redis-sentinel"),
                masterPort,
                null,
                null);
    }

    private static TestServer sentinel(Path binary, int masterPort, String password, TestCertificates tls) {
        Probes.RedisAccess access =
                tls == null ? Probes.RedisAccess.PLAIN : new Probes.RedisAccess(tls.clientSocketFactory(), null, null);
        return ServerProcess.startWithRetry(() -> new ServerProcess(
                "redis-sentinel",
                ServerDirs.create("redis-sentinel"),
                Ports.free(),
                s -> List.of(binary.toString(), s.dir().resolve("sentinel.conf").toString()),
                s -> "PONG".equals(Probes.redisString(access, s.host(), s.port(), "PING")),
                s -> Files.writeString(
                        s.dir().resolve("sentinel.conf"),
                        String.join(
                                "\n",
                                tls == null
                                        ? "port " + s.port()
                                        : String.join(
                                                "\n",
                                                "port 0",
                                                "tls-port " + s.port(),
                                                "tls-cert-file " + tls.serverCertificate(),
                                                "tls-key-file " + tls.serverKey(),
                                                "tls-ca-cert-file " + tls.caCertificate(),
                                                "tls-auth-clients no",
                                                "tls-replication yes"),
                                "bind 127.0.0.1",
                                "protected-mode no",
                                "daemonize no",
                                "dir " + s.dir(),
                                "sentinel resolve-hostnames no",
                                "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + masterPort + " 2",
                                "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                                "sentinel failover-timeout " + MASTER_NAME + " 5000",
                                "sentinel parallel-syncs " + MASTER_NAME + " 1",
                                password == null ? "" : "sentinel auth-pass " + MASTER_NAME + " " + password + "\n"),
                        StandardCharsets.US_ASCII),
                null,
                Duration.ofSeconds(20),
                Map.of()));
    }

    /** The name the sentinels monitor the master under. */
    public String masterName() {
        return MASTER_NAME;
    }

    /** The current master (after {@link #failover()}, the promoted server). */
    public RedisServer master() {
        return master;
    }

    /** The current replica (after {@link #failover()}, the killed old master). */
    public RedisServer replica() {
        return master == first ? second : first;
    }

    /** The three sentinels. */
    public List<TestServer> sentinels() {
        return sentinels;
    }

    /** {@code host:port,host:port,host:port} of the sentinels. */
    public String sentinelAddresses() {
        return sentinels.stream().map(TestServer::address).collect(Collectors.joining(","));
    }

    /** The master address a running sentinel reports now ({@code SENTINEL GET-MASTER-ADDR-BY-NAME}). */
    public String reportedMasterAddress() throws IOException {
        IOException failure = null;
        for (TestServer s : sentinels) {
            if (!s.isRunning()) {
                continue;
            }
            try {
                Object r = Probes.redis(
                        sentinelAccess, s.host(), s.port(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
                if (r instanceof List && ((List<?>) r).size() == 2) {
                    return ((List<?>) r).get(0) + ":" + ((List<?>) r).get(1);
                }
            } catch (IOException e) {
                failure = e;
            }
        }
        throw failure != null ? failure : new IOException("no sentinel answers");
    }

    /**
     * Kills the master (SIGKILL) and waits until the sentinels report the replica as master and the
     * replica says {@code role:master}. The killed server stays down until {@link #rejoin(boolean)}
     * brings it back as a replica of the new master.
     *
     * @return the promoted server
     */
    public RedisServer failover() {
        return failover(Duration.ofSeconds(30));
    }

    /** {@link #failover()} with a bound. */
    public synchronized RedisServer failover(Duration timeout) {
        RedisServer old = master;
        RedisServer promoted = old == first ? second : first;
        old.kill();
        Probes.await(
                "sentinels to promote " + promoted.address(),
                timeout,
                null,
                () -> reportedMasterAddress().equals(promoted.address())
                        && promoted.call("ROLE").startsWith("[master"));
        master = promoted;
        return promoted;
    }

    /**
     * Restarts the server {@link #failover()} killed ({@code keepData}: with what it had on disk) and
     * makes it a replica of the current master with {@code REPLICAOF}, as an operator would; returns
     * when it reports {@code master_link_status:up} (its data replaced by the master's).
     *
     * <p>The sentinels would convert it by themselves, but at Sentinel's fixed pace: they wait until
     * it has reported {@code role:master} for 8 s, see that only in an {@code INFO} every 10 s, and a
     * sentinel in TILT mode (its timer stalled or the clock stepped by 2 s) does nothing for 30 s —
     * 20 s typically, over 90 s once on a loaded CI machine. That is Redis's behaviour, not the
     * library's, so the setup does not wait for it.
     *
     * @return the rejoined server, now {@link #replica()}
     */
    public RedisServer rejoin(boolean keepData) {
        return rejoin(keepData, Duration.ofSeconds(30));
    }

    /** {@link #rejoin(boolean)} with a bound. */
    public synchronized RedisServer rejoin(boolean keepData, Duration timeout) {
        RedisServer old = replica();
        RedisServer current = master;
        old.restart(keepData);
        try {
            current.call("CONFIG", "SET", "repl-diskless-sync-delay", "0");
            old.call("REPLICAOF", current.host(), Integer.toString(current.port()));
        } catch (IOException e) {
            throw new IllegalStateException(
                    "could not make " + old.address() + " a replica of " + current.address(), e);
        }
        Probes.await(
                old.address() + " to sync from " + current.address(),
                timeout,
                null,
                () -> old.call("INFO", "replication").contains("master_link_status:up"));
        return old;
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        List<AutoCloseable> all = new ArrayList<>(sentinels);
        all.add(first);
        all.add(second);
        for (AutoCloseable c : all) {
            try {
                c.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("closing the sentinel setup failed", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
