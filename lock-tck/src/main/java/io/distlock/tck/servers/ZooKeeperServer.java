package io.distlock.tck.servers;

/**
 * A standalone ZooKeeper 3.8 server in its own JVM (the Debian {@code zookeeper} jar), with {@code
 * forceSync=no} and {@code tickTime=200}. Ready when {@code srvr} answers; see {@link
 * ZooKeeperEnsemble} for three servers.
 */
public final class ZooKeeperServer {
    private ZooKeeperServer() {}

    /** Starts a standalone server and waits until it serves requests. */
    public static TestServer start() {
        return ServerProcess.startWithRetry(() -> {
            ServerProcess p = ZooKeeperEnsemble.newProcess("zookeeper", 1, Ports.free(), "");
            return p;
        });
    }
}
