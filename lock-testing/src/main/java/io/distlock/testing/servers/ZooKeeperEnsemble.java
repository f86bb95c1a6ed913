package io.distlock.testing.servers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A ZooKeeper 3.8 ensemble of separate JVM processes (the Debian {@code zookeeper} jar), on
 * loopback ports, with {@code forceSync=no} and {@code tickTime=200} (sessions from 400 ms to 60
 * s).
 *
 * <pre>{@code
 * try (ZooKeeperEnsemble zk = ZooKeeperEnsemble.start(3)) {
 *     LockProviders.open("zookeeper://" + zk.connectString());
 *     zk.leader().kill();
 *     zk.awaitLeader(Duration.ofSeconds(20));
 * }
 * }</pre>
 *
 * A member is ready when the {@code srvr} four-letter word reports a mode (it serves requests);
 * the leader is the member whose {@code srvr} says {@code Mode: leader}. {@code restart(false)}
 * starts a member with an empty data directory (same {@code myid}); it resyncs from the leader.
 */
public final class ZooKeeperEnsemble implements AutoCloseable {
    static final int TICK_MILLIS = 200;
    private final List<TestServer> members;

    private ZooKeeperEnsemble(List<TestServer> members) {
        this.members = List.copyOf(members);
    }

    /** Starts {@code size} servers (1 = standalone) and waits until all serve requests. */
    public static ZooKeeperEnsemble start(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("size must be at least 1 (was " + size + ")");
        }
        int[] clientPorts = new int[size];
        StringBuilder servers = new StringBuilder();
        for (int i = 0; i < size; i++) {
            clientPorts[i] = Ports.free();
            if (size > 1) {
                servers.append("server.")
                        .append(i + 1)
                        .append("=127.0.0.1:")
                        .append(Ports.free())
                        .append(':')
                        .append(Ports.free())
                        .append('\n');
            }
        }
        List<ServerProcess> started = new ArrayList<>();
        try {
            for (int i = 0; i < size; i++) {
                ServerProcess p = newProcess(
                        size == 1 ? "zookeeper" : "zookeeper" + i, i + 1, clientPorts[i], servers.toString());
                started.add(p);
                p.launch();
            }
            for (ServerProcess p : started) {
                p.awaitReady();
            }
            ZooKeeperEnsemble e = new ZooKeeperEnsemble(new ArrayList<>(started));
            e.awaitLeader(Duration.ofSeconds(30));
            return e;
        } catch (RuntimeException e) {
            started.forEach(p -> RedisServers.closeQuietly(p, e));
            throw e;
        }
    }

    static ServerProcess newProcess(String kind, int myid, int clientPort, String servers) {
        return newProcess(kind, myid, clientPort, servers, "");
    }

    /** {@code extraConfig}: more {@code zoo.cfg} lines (each ending in a newline). */
    static ServerProcess newProcess(String kind, int myid, int clientPort, String servers, String extraConfig) {
        Path jar = Binaries.require("zookeeper", "/usr/share/java/zookeeper.jar");
        // the Netty connection factory (TLS) needs netty-codec, which the jar's Class-Path omits
        Path codec = Paths.get("/usr/share/java/netty-codec.jar");
        String classPath = jar + (Files.isReadable(codec) ? java.io.File.pathSeparator + codec : "");
        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        Path dir = ServerDirs.create(kind);
        return new ServerProcess(
                kind,
                dir,
                clientPort,
                s -> List.of(
                        java.toString(),
                        "-Xmx128m",
                        "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1",
                        "-Dzookeeper.admin.enableServer=false",
                        "-Dzookeeper.jmx.log4j.disable=true",
                        "-cp",
                        classPath,
                        "org.apache.zookeeper.server.quorum.QuorumPeerMain",
                        dir.resolve("zoo.cfg").toString()),
                s -> {
                    String srvr = Probes.fourLetter(s.host(), s.port(), "srvr");
                    return srvr.contains("Mode:");
                },
                s -> {
                    Path data = dir.resolve("data");
                    Files.createDirectories(data);
                    if (!servers.isEmpty()) {
                        Files.writeString(data.resolve("myid"), Integer.toString(myid), StandardCharsets.US_ASCII);
                    }
                    Files.writeString(
                            dir.resolve("zoo.cfg"),
                            "tickTime=" + TICK_MILLIS + "\n"
                                    + "initLimit=50\n"
                                    + "syncLimit=10\n"
                                    + "minSessionTimeout=" + (2 * TICK_MILLIS) + "\n"
                                    + "maxSessionTimeout=60000\n"
                                    + "dataDir=" + data + "\n"
                                    + "clientPort=" + clientPort + "\n"
                                    + "clientPortAddress=127.0.0.1\n"
                                    + "forceSync=no\n"
                                    + "maxClientCnxns=0\n"
                                    + "admin.enableServer=false\n"
                                    + "4lw.commands.whitelist=*\n"
                                    + "standaloneEnabled=true\n"
                                    + servers
                                    + extraConfig,
                            StandardCharsets.US_ASCII);
                },
                null,
                Duration.ofSeconds(40),
                Map.of());
    }

    /** The servers, in start order ({@code myid} 1..n). */
    public List<TestServer> members() {
        return members;
    }

    /** The server at {@code index} ({@code myid} index + 1). */
    public TestServer member(int index) {
        return members.get(index);
    }

    /** {@code 127.0.0.1:p1,127.0.0.1:p2,...}. */
    public String connectString() {
        return members.stream().map(TestServer::address).collect(Collectors.joining(","));
    }

    /** The {@code Mode:} line of {@code srvr} of {@code member} ("leader", "follower", "standalone"), or empty. */
    public static Optional<String> mode(TestServer member) {
        try {
            String srvr = Probes.fourLetter(member.host(), member.port(), "srvr");
            for (String line : srvr.split("\n")) {
                if (line.startsWith("Mode:")) {
                    return Optional.of(line.substring(5).trim());
                }
            }
        } catch (IOException e) {
            // not answering
        }
        return Optional.empty();
    }

    /** The member whose {@code srvr} says leader (or standalone), if any answers so now. */
    public Optional<TestServer> findLeader() {
        for (TestServer m : members) {
            if (m.isRunning()) {
                Optional<String> mode = mode(m);
                if (mode.isPresent()
                        && (mode.get().equals("leader") || mode.get().equals("standalone"))) {
                    return Optional.of(m);
                }
            }
        }
        return Optional.empty();
    }

    /** Waits until a leader serves, and returns it. */
    public TestServer awaitLeader(Duration timeout) {
        TestServer[] found = new TestServer[1];
        Probes.await("a ZooKeeper leader among " + connectString(), timeout, null, () -> {
            Optional<TestServer> l = findLeader();
            l.ifPresent(s -> found[0] = s);
            return l.isPresent();
        });
        return found[0];
    }

    /** The current leader (waits up to 20 s). */
    public TestServer leader() {
        return awaitLeader(Duration.ofSeconds(20));
    }

    @Override
    public void close() {
        for (TestServer m : members) {
            m.close();
        }
    }
}
