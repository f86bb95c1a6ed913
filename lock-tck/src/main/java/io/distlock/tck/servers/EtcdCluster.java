package io.distlock.tck.servers;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * An etcd 3.4 cluster of local members on loopback ports, with {@code --unsafe-no-fsync}.
 *
 * <pre>{@code
 * try (EtcdCluster cluster = EtcdCluster.start(3)) {
 *     LockProviders.open("etcd://" + cluster.addresses());
 *     cluster.leader().kill();          // the others elect a new leader
 *     cluster.awaitLeader(Duration.ofSeconds(10));
 * }
 * }</pre>
 *
 * A member can be killed, paused and restarted with its data ({@code restart(true)}); {@code
 * restart(false)} throws, since a member without its data must be removed and re-added.
 */
public final class EtcdCluster implements AutoCloseable {
    private final List<TestServer> members;

    private EtcdCluster(List<TestServer> members) {
        this.members = List.copyOf(members);
    }

    /** Starts {@code size} members and waits until each is healthy (a leader is elected). */
    public static EtcdCluster start(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("size must be at least 1 (was " + size + ")");
        }
        List<Member> specs = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            specs.add(member("etcd" + i, "m" + i, Ports.free(), Ports.free()));
        }
        String initialCluster =
                specs.stream().map(m -> m.name() + "=" + m.peerUrl()).collect(Collectors.joining(","));
        String token = "distlock-" + specs.get(0).dir().getFileName();
        List<ServerProcess> started = new ArrayList<>();
        try {
            for (Member m : specs) {
                ServerProcess p = m.newProcess(initialCluster, token);
                started.add(p);
                p.launch();
            }
            for (ServerProcess p : started) {
                p.awaitReady();
            }
            List<TestServer> members = new ArrayList<>();
            for (ServerProcess p : started) {
                members.add(new ClusterMember(p));
            }
            EtcdCluster cluster = new EtcdCluster(members);
            cluster.awaitLeader(Duration.ofSeconds(20));
            return cluster;
        } catch (RuntimeException e) {
            started.forEach(p -> RedisServers.closeQuietly(p, e));
            throw e;
        }
    }

    record Member(String kind, String name, int clientPort, int peerPort, Path dir) {
        String clientUrl() {
            return "http://127.0.0.1:" + clientPort;
        }

        String peerUrl() {
            return "http://127.0.0.1:" + peerPort;
        }

        ServerProcess newProcess(String initialCluster, String clusterToken) {
            return newProcess(initialCluster, clusterToken, null, 0);
        }

        /**
         * With {@code tls}, clients connect with {@code https} and the server's certificate; readiness
         * is then probed on a plain-HTTP metrics listener on {@code metricsPort}.
         */
        ServerProcess newProcess(String initialCluster, String clusterToken, TestCertificates tls, int metricsPort) {
            Path binary = Binaries.require("etcd-server", "etcd", "/usr/bin/etcd");
            String clientUrl = tls == null ? clientUrl() : "https://127.0.0.1:" + clientPort;
            List<String> extra = tls == null
                    ? List.of()
                    : List.of(
                            "--cert-file",
                            tls.serverCertificate().toString(),
                            "--key-file",
                            tls.serverKey().toString(),
                            "--listen-metrics-urls",
                            "http://127.0.0.1:" + metricsPort);
            return new ServerProcess(
                    kind,
                    dir,
                    clientPort,
                    s -> concat(
                            List.of(
                                    binary.toString(),
                                    "--name",
                                    name,
                                    "--data-dir",
                                    dir.resolve("data").toString(),
                                    "--listen-client-urls",
                                    clientUrl,
                                    "--advertise-client-urls",
                                    clientUrl,
                                    "--listen-peer-urls",
                                    peerUrl(),
                                    "--initial-advertise-peer-urls",
                                    peerUrl(),
                                    "--initial-cluster",
                                    initialCluster,
                                    "--initial-cluster-state",
                                    "new",
                                    "--initial-cluster-token",
                                    clusterToken,
                                    "--unsafe-no-fsync",
                                    "--heartbeat-interval",
                                    "50",
                                    "--election-timeout",
                                    "500",
                                    "--logger",
                                    "zap",
                                    "--log-level",
                                    "warn"),
                            extra),
                    s -> Probes.httpGet(s.host(), tls == null ? s.port() : metricsPort, "/health")
                            .contains("\"true\""),
                    null,
                    null,
                    Duration.ofSeconds(30),
                    Map.of("ETCD_UNSUPPORTED_ARCH", ""));
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    static Member member(String kind, String name, int clientPort, int peerPort) {
        return new Member(kind, name, clientPort, peerPort, ServerDirs.create(kind));
    }

    /** The members, in start order. */
    public List<TestServer> members() {
        return members;
    }

    /** The member at {@code index}, in start order. */
    public TestServer member(int index) {
        return members.get(index);
    }

    /** Client endpoints {@code http://127.0.0.1:port}. */
    public List<String> endpoints() {
        return members.stream().map(m -> "http://" + m.address()).collect(Collectors.toList());
    }

    /** {@code host:port,host:port,...} of the client ports. */
    public String addresses() {
        return members.stream().map(TestServer::address).collect(Collectors.joining(","));
    }

    /**
     * The member that says it is the leader now, asked through {@code /v3/maintenance/status} of
     * each running member; empty if none answers so.
     */
    public Optional<TestServer> findLeader() {
        for (TestServer m : members) {
            if (!m.isRunning()) {
                continue;
            }
            try {
                String status = Probes.httpPost(m.host(), m.port(), "/v3/maintenance/status", "{}");
                String self = Probes.jsonField(status, "member_id");
                String leader = Probes.jsonField(status, "leader");
                if (self != null && self.equals(leader)) {
                    return Optional.of(m);
                }
            } catch (IOException e) {
                // paused or dying member: ask the next
            }
        }
        return Optional.empty();
    }

    /** Waits until a member reports itself leader, and returns it. */
    public TestServer awaitLeader(Duration timeout) {
        TestServer[] found = new TestServer[1];
        Probes.await("a leader in the etcd cluster " + addresses(), timeout, null, () -> {
            Optional<TestServer> l = findLeader();
            l.ifPresent(s -> found[0] = s);
            return l.isPresent();
        });
        return found[0];
    }

    /** The current leader (waits up to 10 s for one). */
    public TestServer leader() {
        return awaitLeader(Duration.ofSeconds(10));
    }

    @Override
    public void close() {
        for (TestServer m : members) {
            m.close();
        }
    }

    /** A member; refuses a restart without data. */
    private static final class ClusterMember implements TestServer {
        private final ServerProcess p;

        ClusterMember(ServerProcess p) {
            this.p = p;
        }

        @Override
        public String host() {
            return p.host();
        }

        @Override
        public int port() {
            return p.port();
        }

        @Override
        public long pid() {
            return p.pid();
        }

        @Override
        public boolean isRunning() {
            return p.isRunning();
        }

        @Override
        public void kill() {
            p.kill();
        }

        @Override
        public void pause() {
            p.pause();
        }

        @Override
        public void resume() {
            p.resume();
        }

        @Override
        public void restart(boolean keepData) {
            if (!keepData) {
                throw new UnsupportedOperationException("restart(false) of an etcd cluster member: a member that"
                        + " lost its data must be removed from the cluster and added as a new member");
            }
            p.restart(true);
        }

        @Override
        public void close() {
            p.close();
        }

        @Override
        public String toString() {
            return p.toString();
        }
    }
}
