package io.distlock.testing.servers;

import com.github.dockerjava.api.DockerClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
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
                (h, p) -> "PONG".equals(Probes.redisString(h, p, "PING")));
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
                (h, p) -> Probes.httpGet(h, p, "/health").contains("true"));
    }

    interface Check {
        boolean ready(String host, int port) throws Exception;
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
        private GenericContainer<?> container;

        private ContainerServer(String kind, String image, int port, IntFunction<List<String>> command, Check probe) {
            this.kind = kind;
            this.image = image;
            this.port = port;
            this.command = command;
            this.probe = probe;
        }

        static ContainerServer start(String kind, String image, IntFunction<List<String>> command, Check probe) {
            ContainerServer s = new ContainerServer(kind, image, Ports.free(), command, probe);
            s.create();
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
            Probes.await(kind + " container on " + address(), Duration.ofSeconds(30), null, () -> {
                if (!isRunning()) {
                    throw new ServerStartException(kind + " container exited: " + container.getLogs());
                }
                return probe.ready(host(), port);
            });
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
        }

        @Override
        public String toString() {
            return kind + " container " + image + "@" + address();
        }
    }
}
