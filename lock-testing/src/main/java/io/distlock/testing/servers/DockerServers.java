package io.distlock.testing.servers;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Volume;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Servers in containers through Testcontainers. Only this class and {@link ContainerServer} refer
 * to Testcontainers; they are loaded only when docker mode is in use. Containers use host
 * networking and listen on a free 127.0.0.1 port, so nothing but loopback is addressed.
 */
final class DockerServers {
    private DockerServers() {}

    static boolean isDockerUsable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    static TestServer redis(boolean durable) {
        String image = ServerMode.redisImage();
        return ContainerServer.start(
                "redis",
                image,
                port -> {
                    List<String> c = new ArrayList<>(List.of(
                            "redis-server",
                            "--port",
                            Integer.toString(port),
                            "--bind",
                            "127.0.0.1",
                            "--protected-mode",
                            "no",
                            "--dir",
                            "/data",
                            "--save",
                            ""));
                    c.addAll(
                            durable
                                    ? List.of("--appendonly", "yes", "--appendfsync", "always")
                                    : List.of("--appendonly", "no"));
                    return c;
                },
                (h, p) -> "PONG".equals(Probes.redisString(h, p, "PING")),
                Extras.NONE);
    }

    static TestServer etcd() {
        String image = ServerMode.etcdImage();
        return ContainerServer.start(
                "etcd",
                image,
                port -> {
                    int peer = Ports.free();
                    String client = "http://127.0.0.1:" + port;
                    String peerUrl = "http://127.0.0.1:" + peer;
                    return List.of(
                            "etcd",
                            "--name",
                            "default",
                            "--data-dir",
                            "/etcd-data",
                            "--listen-client-urls",
                            client,
                            "--advertise-client-urls",
                            client,
                            "--listen-peer-urls",
                            peerUrl,
                            "--initial-advertise-peer-urls",
                            peerUrl,
                            "--initial-cluster",
                            "default=" + peerUrl,
                            "--unsafe-no-fsync",
                            // as the local launcher (EtcdCluster.member): short election timeout, so that
                            // etcd's minimum lease TTL (1.5 x election timeout) allows sub-second leases
                            "--heartbeat-interval",
                            "50",
                            "--election-timeout",
                            "500",
                            "--log-level",
                            "warn",
                            "--logger",
                            "zap");
                },
                (h, p) -> Probes.httpGet(h, p, "/health").contains("true"),
                Extras.NONE);
    }

    /**
     * PostgreSQL on {@code port} in a container, as the image's user {@code postgres}, with {@code
     * dir} mounted at the same path as its data and Unix-socket directory: the host's {@code psql}
     * and {@code pg_isready} reach the server through the socket there. The container runs {@code
     * initdb} ({@code initdb} arguments) when {@code dir/data} holds no cluster yet, then {@code
     * postgres} ({@code server} arguments), so that a restart with its data keeps the cluster.
     */
    static TestServer postgres(
            Path dir, int port, List<String> initdb, List<String> server, Check probe, Hook prepare, Hook afterReady) {
        String script = "test -f " + shellQuoted(dir.resolve("data/PG_VERSION").toString()) + " || initdb "
                + shellQuoted(initdb) + " && exec postgres " + shellQuoted(server);
        return ContainerServer.start(
                "postgresql",
                ServerMode.postgresImage(),
                port,
                p -> List.of("sh", "-c", script),
                probe,
                new Extras("postgres", dir, prepare, afterReady, Duration.ofSeconds(60)));
    }

    private static String shellQuoted(List<String> args) {
        return args.stream().map(DockerServers::shellQuoted).collect(Collectors.joining(" "));
    }

    private static String shellQuoted(String arg) {
        return "'" + arg.replace("'", "'\\''") + "'";
    }

    interface Check {
        boolean ready(String host, int port) throws Exception;
    }

    interface Hook {
        void run() throws Exception;
    }

    /**
     * What a container needs beyond its image and command: the user it runs as (null: the image's),
     * a host directory it sees at the same path (null: none) with hooks before a start from an empty
     * directory and after each start, and how long it may take to answer.
     */
    record Extras(String user, Path dir, Hook prepare, Hook afterReady, Duration startTimeout) {
        static final Extras NONE = new Extras(null, null, null, null, Duration.ofSeconds(30));
    }

    /** A server in a container with host networking. */
    static final class ContainerServer implements TestServer {
        private static final Set<ContainerServer> LIVE = ConcurrentHashMap.newKeySet();
        private static final String KIND_LABEL = "io.distlock.test-server";
        private static final String OWNER_LABEL = "io.distlock.owner-pid";

        static {
            Runtime.getRuntime()
                    .addShutdownHook(
                            new Thread(() -> LIVE.forEach(ContainerServer::close), "distlock-servers-docker-shutdown"));
        }

        private final String kind;
        private final String image;
        private final int port;
        private final IntFunction<List<String>> command;
        private final Check probe;
        private final Extras extras;
        private GenericContainer<?> container;

        private ContainerServer(
                String kind, String image, int port, IntFunction<List<String>> command, Check probe, Extras extras) {
            this.kind = kind;
            this.image = image;
            this.port = port;
            this.command = command;
            this.probe = probe;
            this.extras = extras;
        }

        static ContainerServer start(
                String kind, String image, IntFunction<List<String>> command, Check probe, Extras extras) {
            return start(kind, image, Ports.free(), command, probe, extras);
        }

        static ContainerServer start(
                String kind, String image, int port, IntFunction<List<String>> command, Check probe, Extras extras) {
            ContainerServer s = new ContainerServer(kind, image, port, command, probe, extras);
            try {
                s.create();
            } catch (RuntimeException e) {
                s.close(); // a container that started but never answered, and the directory
                throw e;
            }
            LIVE.add(s);
            return s;
        }

        @SuppressWarnings("resource")
        private synchronized void create() {
            GenericContainer<?> c = new GenericContainer<>(DockerImageName.parse(image))
                    .withNetworkMode("host")
                    .withCommand(command.apply(port).toArray(new String[0]))
                    .withLabel(KIND_LABEL, kind)
                    .withLabel(
                            OWNER_LABEL, Long.toString(ProcessHandle.current().pid()));
            if (extras.user() != null || extras.dir() != null) {
                c.withCreateContainerCmdModifier(cmd -> {
                    if (extras.user() != null) {
                        cmd.withUser(extras.user());
                    }
                    if (extras.dir() != null) {
                        String dir = extras.dir().toString();
                        cmd.getHostConfig().withBinds(new Bind(dir, new Volume(dir)));
                    }
                });
            }
            run(extras.prepare(), "prepare");
            removeOrphans();
            try {
                c.start();
            } catch (RuntimeException e) {
                c.stop();
                throw new ServerStartException(
                        "cannot start " + kind + " container from image '" + image + "' (docker mode: "
                                + ServerMode.PROPERTY + "="
                                + ServerMode.configured().name().toLowerCase()
                                + "; build local images with scripts/docker-images.sh): " + e.getMessage(),
                        e);
            }
            container = c;
            awaitReady();
        }

        private void awaitReady() {
            Probes.await(kind + " container on " + address(), extras.startTimeout(), null, () -> {
                if (!isRunning()) {
                    throw new ServerStartException(kind + " container exited: " + container.getLogs());
                }
                return probe.ready(host(), port);
            });
            run(extras.afterReady(), "set up");
        }

        private void run(Hook hook, String what) {
            if (hook == null) {
                return;
            }
            try {
                hook.run();
            } catch (ServerStartException e) {
                throw e;
            } catch (Exception e) {
                throw new ServerStartException(
                        "cannot " + what + " " + kind + " container on " + address() + ": " + e, e);
            }
        }

        /**
         * Removes containers left by test JVMs that died without closing them (Ryuk, the
         * Testcontainers reaper, is disabled here).
         */
        private void removeOrphans() {
            try {
                for (var c : client().listContainersCmd()
                        .withShowAll(true)
                        .withLabelFilter(java.util.List.of(KIND_LABEL))
                        .exec()) {
                    String owner = c.getLabels() == null ? null : c.getLabels().get(OWNER_LABEL);
                    long pid = owner == null ? -1 : Long.parseLong(owner);
                    if (pid > 0
                            && !ProcessHandle.of(pid)
                                    .map(ProcessHandle::isAlive)
                                    .orElse(false)) {
                        client().removeContainerCmd(c.getId()).withForce(true).exec();
                    }
                }
            } catch (RuntimeException e) {
                // best effort
            }
        }

        private DockerClient client() {
            return DockerClientFactory.instance().client();
        }

        @Override
        public String host() {
            return ServerProcess.HOST;
        }

        @Override
        public int port() {
            return port;
        }

        @Override
        public synchronized long pid() {
            Long pid = client().inspectContainerCmd(container.getContainerId())
                    .exec()
                    .getState()
                    .getPidLong();
            if (pid == null || pid == 0) {
                throw new IllegalStateException(kind + " container on " + address() + " is not running");
            }
            return pid;
        }

        @Override
        public synchronized boolean isRunning() {
            if (container == null) {
                return false;
            }
            Boolean running = client().inspectContainerCmd(container.getContainerId())
                    .exec()
                    .getState()
                    .getRunning();
            return Boolean.TRUE.equals(running);
        }

        @Override
        public synchronized void kill() {
            if (container != null && isRunning()) {
                client().killContainerCmd(container.getContainerId())
                        .withSignal("KILL")
                        .exec();
                Probes.await(
                        kind + " container on " + address() + " to exit",
                        Duration.ofSeconds(10),
                        null,
                        () -> !isRunning());
            }
        }

        @Override
        public synchronized void pause() {
            client().pauseContainerCmd(container.getContainerId()).exec();
        }

        @Override
        public synchronized void resume() {
            client().unpauseContainerCmd(container.getContainerId()).exec();
        }

        @Override
        public synchronized void restart(boolean keepData) {
            kill();
            if (keepData) {
                client().startContainerCmd(container.getContainerId()).exec();
                awaitReady();
            } else {
                container.stop();
                if (extras.dir() != null) {
                    ServerDirs.emptyDir(extras.dir());
                }
                create();
            }
        }

        @Override
        public synchronized void close() {
            LIVE.remove(this);
            if (container != null) {
                container.stop();
                container = null;
            }
            ServerDirs.deleteQuietly(extras.dir());
        }

        @Override
        public String toString() {
            return kind + " container " + image + "@" + address();
        }
    }
}
