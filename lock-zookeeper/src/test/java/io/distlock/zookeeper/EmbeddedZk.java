package io.distlock.zookeeper;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;

/**
 * A real standalone ZooKeeper server in this JVM, listening on 127.0.0.1 only, on a free port, in a
 * temporary directory, without fsync. In-process (unlike lock-testing's {@code ZooKeeperServer},
 * which runs the server in its own process) so that tests can read server-side state a client does
 * not see: the server's packet counter at once, and whether a node is a container.
 */
final class EmbeddedZk implements AutoCloseable {
    static final int TICK_MS = 100;

    static {
        System.setProperty("zookeeper.forceSync", "no");
        System.setProperty("zookeeper.admin.enableServer", "false");
        System.setProperty("zookeeper.4lw.commands.whitelist", "*");
    }

    private final Path dir;
    private int port;
    private ZooKeeperServer server;
    private ServerCnxnFactory factory;

    private EmbeddedZk(Path dir) {
        this.dir = dir;
    }

    static EmbeddedZk start() {
        try {
            EmbeddedZk zk = new EmbeddedZk(Files.createTempDirectory("distlock-zk-"));
            zk.startServer();
            return zk;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    synchronized void startServer() {
        if (server != null) {
            return;
        }
        try {
            File data = dir.toFile();
            ZooKeeperServer s = new ZooKeeperServer(data, data, TICK_MS);
            s.setMinSessionTimeout(2 * TICK_MS);
            s.setMaxSessionTimeout(60_000);
            ServerCnxnFactory f = ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", port), 200);
            f.startup(s);
            server = s;
            factory = f;
            port = f.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    synchronized void stopServer() {
        if (server == null) {
            return;
        }
        factory.shutdown();
        server.shutdown(true);
        server = null;
        factory = null;
    }

    String connectString() {
        return "127.0.0.1:" + port;
    }

    synchronized int connectionCount() {
        return factory == null ? 0 : factory.getNumAliveConnections();
    }

    /** Whether {@code path} is a container node (the client-side Stat does not show it). */
    synchronized boolean isContainer(String path) {
        var node = server.getZKDatabase().getNode(path);
        return node != null && node.stat.getEphemeralOwner() == Long.MIN_VALUE;
    }

    /** Requests the server has received so far (its own statistics). */
    synchronized long packetsReceived() {
        return server == null ? 0 : server.serverStats().getPacketsReceived();
    }

    @Override
    public void close() {
        stopServer();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException ignored) {
            // temp dir; best effort
        }
    }
}
