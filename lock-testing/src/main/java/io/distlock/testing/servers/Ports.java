package io.distlock.testing.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Free loopback ports: bind port 0, read the port, release it. Another process may take the port
 * before the server binds it; launchers of single servers retry with a new port when the server
 * reports the address in use. Ports handed out in this JVM are never handed out twice.
 */
final class Ports {
    private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();

    private Ports() {}

    static int free() {
        for (int i = 0; i < 50; i++) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int port = s.getLocalPort();
                // etcd and ZooKeeper use port+something elsewhere; keep clear of the top of the range
                if (port < 65000 && GIVEN.add(port)) {
                    return port;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot find a free port on 127.0.0.1", e);
            }
        }
        throw new IllegalStateException("no free port on 127.0.0.1 after 50 attempts");
    }
}
