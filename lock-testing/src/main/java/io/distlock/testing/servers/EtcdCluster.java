package io.distlock.testing.servers;

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
 * A member can be killed, paused and restarted with its data ({@code restart(true)}). A member
 * restarted without its data ({@link #restartMemberWithoutData(int)}, or {@code restart(false)} on
 * the member) is replaced the operator's way: removed from the cluster and added again as a new
 * member on the same ports, then started empty with {@code --initial-cluster-state existing}; it
 * copies the data from the leader.
 */
public final class EtcdCluster implements AutoCloseable {
    private static final Duration RECONFIGURE_TIMEOUT = Duration.ofSeconds(30);

    private final List<Member> specs;
    private final String clusterToken;
    private final List<TestServer> members;

    private EtcdCluster(List<Member> specs, String clusterToken, List<ServerProcess> processes) {
        this.specs = List.copyOf(specs);
        this.clusterToken = clusterToken;
        List<TestServer> wrapped = new ArrayList<>();
        for (ServerProcess p : processes) {
            wrapped.add(new ClusterMember(this, wrapped.size(), p));
        }
        this.members = List.copyOf(wrapped);
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
            EtcdCluster cluster = new EtcdCluster(specs, token, started);
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
            return newProcess(initialCluster, clusterToken, "new", null, 0);
        }

        ServerProcess newProcess(
                String initialCluster, String clusterToken, String state, TestCertificates tls, int metricsPort) {
            return newProcess(initialCluster, clusterToken, state, tls, metricsPort, false);
        }

        /**
         * With {@code tls}, clients connect with {@code https} and the server's certificate; readiness
         * is then probed on a plain-HTTP metrics listener on {@code metricsPort}. With {@code
         * clientCertAuth} too, clients must present a certificate signed by {@code tls}' CA ({@code
         * --client-cert-auth}, {@code --trusted-ca-file}).
         */
        ServerProcess newProcess(
                String initialCluster,
                String clusterToken,
                String state,
                TestCertificates tls,
                int metricsPort,
                boolean clientCertAuth) {
            Path binary = Binaries.require("etcd-server", "etcd", "/usr/bin/etcd");
            String clientUrl = tls == null ? clientUrl() : "https://127.0.0.1:" + clientPort;
            List<String> tlsArgs = tls == null
                    ? List.of()
                    : List.of(
                            "--cert-file",
                            tls.serverCertificate().toString(),
                            "--key-file",
                            tls.serverKey().toString(),
                            "--listen-metrics-urls",
                            "http://127.0.0.1:" + metricsPort);
            List<String> extra = tls != null && clientCertAuth
                    ? concat(
                            tlsArgs,
                            List.of(
                                    "--client-cert-auth",
                                    "--trusted-ca-file",
                                    tls.caCertificate().toString()))
                    : tlsArgs;
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
                                    state,
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

    /**
     * Replaces member {@code index} by an empty one, as an operator replaces a member whose disk was
     * lost: SIGKILL it (if it runs), delete its data directory, {@code member remove} its old id and
     * {@code member add} its peer URL through the leader of the others (retried while etcd's strict
     * reconfiguration check refuses), then start it with an empty data directory and {@code
     * --initial-cluster-state existing} on the same ports and name. Returns once the member is
     * healthy and has caught up: a serializable read it serves itself reports at least the revision
     * the leader reported (linearizable read) after the member started.
     *
     * <p>Needs a quorum of the other members (2 of a 3-member cluster) running. The member gets a new
     * member id; {@link #member(int)} is the same object, its address unchanged.
     *
     * @throws IndexOutOfBoundsException if {@code index} is not a member's
     * @throws ServerStartException if the cluster does not accept the new member or it does not catch
     *     up within 30 s
     */
    public TestServer restartMemberWithoutData(int index) {
        ClusterMember m = (ClusterMember) members.get(index);
        Member spec = specs.get(index);
        synchronized (m) {
            m.process().kill();
            ServerDirs.emptyDir(spec.dir());
            String peer = spec.peerUrl();
            String oldId;
            try {
                oldId = idOf(memberList(awaitLeaderOtherThan(index)), peer);
            } catch (IOException e) {
                throw new ServerStartException("cannot list the etcd cluster's members: " + e, e);
            }
            Probes.await(
                    "etcd member " + spec.name() + " removed and added again at " + peer,
                    RECONFIGURE_TIMEOUT,
                    null,
                    () -> {
                        TestServer via = awaitLeaderOtherThan(index);
                        String id = idOf(memberList(via), peer);
                        if (id != null && !id.equals(oldId)) {
                            return true;
                        }
                        if (id != null) {
                            Probes.httpPost(
                                    via.host(), via.port(), "/v3/cluster/member/remove", "{\"ID\":\"" + id + "\"}");
                        }
                        Probes.httpPost(
                                via.host(), via.port(), "/v3/cluster/member/add", "{\"peerURLs\":[\"" + peer + "\"]}");
                        return false;
                    });
            String initialCluster =
                    specs.stream().map(s -> s.name() + "=" + s.peerUrl()).collect(Collectors.joining(","));
            ServerProcess p = spec.newProcess(initialCluster, clusterToken, "existing", null, 0);
            m.replace(p);
            p.start();
            long[] target = {-1};
            Probes.await("the etcd cluster's revision", RECONFIGURE_TIMEOUT, null, () -> {
                target[0] = revision(awaitLeader(RECONFIGURE_TIMEOUT), false);
                return true;
            });
            Probes.await(
                    "etcd member " + spec.name() + " caught up to revision " + target[0],
                    RECONFIGURE_TIMEOUT,
                    p.process(),
                    () -> revision(m, true) >= target[0]);
        }
        return m;
    }

    private TestServer awaitLeaderOtherThan(int index) {
        TestServer leader = awaitLeader(RECONFIGURE_TIMEOUT);
        if (leader == members.get(index)) {
            throw new IllegalStateException("member " + index + " is the leader while it is being replaced");
        }
        return leader;
    }

    private static String memberList(TestServer via) throws IOException {
        return Probes.httpPost(via.host(), via.port(), "/v3/cluster/member/list", "{}");
    }

    /** The id of the member with {@code peerUrl} in a {@code member/list} answer, or null. */
    static String idOf(String memberList, String peerUrl) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("\\{[^{}]*\\}").matcher(memberList);
        while (m.find()) {
            String member = m.group();
            if (member.contains("\"" + peerUrl + "\"")) {
                return Probes.jsonField(member, "ID");
            }
        }
        return null;
    }

    /** The store revision {@code server} reports, linearizable or served from its own state. */
    private static long revision(TestServer server, boolean serializable) throws IOException {
        String body = Probes.httpPost(
                server.host(),
                server.port(),
                "/v3/kv/range",
                "{\"key\":\"" + EtcdServer.b64("/") + "\",\"serializable\":" + serializable + "}");
        String revision = Probes.jsonField(body, "revision");
        if (revision == null) {
            throw new IOException("no revision in " + body);
        }
        return Long.parseLong(revision);
    }

    @Override
    public void close() {
        for (TestServer m : members) {
            m.close();
        }
    }

    /** A member; its process is replaced when it is restarted without data. */
    private static final class ClusterMember implements TestServer {
        private final EtcdCluster cluster;
        private final int index;
        private volatile ServerProcess p;

        ClusterMember(EtcdCluster cluster, int index, ServerProcess p) {
            this.cluster = cluster;
            this.index = index;
            this.p = p;
        }

        ServerProcess process() {
            return p;
        }

        void replace(ServerProcess next) {
            p = next;
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

        /** With data: a plain restart. Without: {@link EtcdCluster#restartMemberWithoutData(int)}. */
        @Override
        public void restart(boolean keepData) {
            if (keepData) {
                p.restart(true);
            } else {
                cluster.restartMemberWithoutData(index);
            }
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
