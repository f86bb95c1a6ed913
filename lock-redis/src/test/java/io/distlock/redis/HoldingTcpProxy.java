package io.distlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Test-only loopback TCP proxy that can hold traffic (bytes are read but not forwarded) and drop
 * everything on {@link #close()}. Temporary: to be replaced by {@code io.distlock.tck.faults.TcpProxy}.
 */
final class HoldingTcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private boolean held;
    private volatile boolean closed;

    HoldingTcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::acceptLoop, "distlock-test-proxy-accept");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** From now on, bytes read are kept until {@link #resume()} (or dropped on close). */
    void hold() {
        synchronized (gate) {
            held = true;
        }
    }

    void resume() {
        synchronized (gate) {
            held = false;
            gate.notifyAll();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2000);
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream, "up");
                pump(upstream, client, "down");
            } catch (IOException e) {
                if (!closed) {
                    continue;
                }
                return;
            }
        }
    }

    private void pump(Socket from, Socket to, String direction) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        Thread t = new Thread(
                () -> {
                    byte[] buf = new byte[16 * 1024];
                    try {
                        int n;
                        while ((n = in.read(buf)) >= 0) {
                            synchronized (gate) {
                                while (held && !closed) {
                                    gate.wait();
                                }
                            }
                            if (closed) {
                                return;
                            }
                            out.write(buf, 0, n);
                            out.flush();
                        }
                    } catch (IOException | InterruptedException e) {
                        // connection ended
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "distlock-test-proxy-" + direction);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    /** Resets every current connection (dropping held bytes) but keeps accepting new ones. */
    void cutConnections() {
        List<Socket> current = List.copyOf(sockets);
        sockets.removeAll(current);
        current.forEach(HoldingTcpProxy::closeQuietly);
    }

    /** Closes every connection, dropping held bytes. */
    @Override
    public void close() {
        closed = true;
        synchronized (gate) {
            gate.notifyAll();
        }
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        sockets.forEach(HoldingTcpProxy::closeQuietly);
    }
}
