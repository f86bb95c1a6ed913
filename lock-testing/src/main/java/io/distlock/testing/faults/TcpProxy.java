package io.distlock.testing.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A TCP proxy on a free 127.0.0.1 port in front of one target, to partition a client from a server.
 *
 * <ul>
 *   <li>{@link #setLatency(Direction, Duration)} delays every chunk by the given time (each chunk
 *       is delivered no earlier than its arrival plus the latency; order is kept).
 *   <li>{@link #blackhole(Direction)} stops forwarding in that direction: connections stay open,
 *       data is read and held (like packets of a partitioned TCP stream awaiting retransmission),
 *       and {@link #resume()} delivers it in order. Requests therefore hang, they do not fail.
 *   <li>{@link #cutConnections()} resets (RST) every open connection on both sides; new connections
 *       are still accepted.
 * </ul>
 *
 * Threads are named {@code distlock-tcpproxy-<port>-...}, are daemons, and stop on {@link #close()}.
 *
 * <pre>{@code
 * try (TcpProxy proxy = TcpProxy.start("127.0.0.1", redis.port())) {
 *     LockProvider client = LockProviders.open("redis://" + proxy.address());
 *     proxy.blackhole(TcpProxy.Direction.BOTH);   // client partitioned
 *     proxy.resume();
 * }
 * }</pre>
 */
public final class TcpProxy implements AutoCloseable {

    /** A direction of traffic through the proxy. */
    public enum Direction {
        /** Client to server. */
        UPSTREAM,
        /** Server to client. */
        DOWNSTREAM,
        /** Both directions. */
        BOTH;

        boolean includes(Direction d) {
            return this == BOTH || this == d;
        }
    }

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket server;
    private final Thread acceptor;
    private final String threadPrefix;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final java.util.Queue<Thread> threads = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final AtomicLong upstreamBytes = new AtomicLong();
    private final AtomicLong downstreamBytes = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicInteger connectionIds = new AtomicInteger();
    private volatile long upstreamLatencyNanos;
    private volatile long downstreamLatencyNanos;
    private volatile boolean upstreamBlocked;
    private volatile boolean downstreamBlocked;
    private volatile boolean closed;

    private TcpProxy(String targetHost, int targetPort) {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        try {
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on 127.0.0.1", e);
        }
        this.threadPrefix = "distlock-tcpproxy-" + server.getLocalPort();
        this.acceptor = new Thread(this::acceptLoop, threadPrefix + "-accept");
        acceptor.setDaemon(true);
    }

    /**
     * Starts a proxy to {@code targetHost:targetPort}.
     *
     * @throws IllegalArgumentException if the port is outside 1..65535
     */
    public static TcpProxy start(String targetHost, int targetPort) {
        Objects.requireNonNull(targetHost, "targetHost must not be null");
        if (targetPort < 1 || targetPort > 65535) {
            throw new IllegalArgumentException("targetPort must be in 1..65535 (was " + targetPort + ")");
        }
        TcpProxy p = new TcpProxy(targetHost, targetPort);
        p.acceptor.start();
        return p;
    }

    /** The proxy's host, {@code 127.0.0.1}. */
    public String host() {
        return "127.0.0.1";
    }

    /** The proxy's port. */
    public int port() {
        return server.getLocalPort();
    }

    /** {@code 127.0.0.1:port} of the proxy. */
    public String address() {
        return host() + ":" + port();
    }

    /** Sets the latency of both directions. */
    public void setLatency(Duration latency) {
        setLatency(Direction.BOTH, latency);
    }

    /**
     * Sets the latency added to {@code direction} (zero removes it).
     *
     * @throws IllegalArgumentException if latency is negative
     */
    public void setLatency(Direction direction, Duration latency) {
        Objects.requireNonNull(direction, "direction must not be null");
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative (was " + latency + ")");
        }
        long nanos = latency.toNanos();
        if (direction.includes(Direction.UPSTREAM)) {
            upstreamLatencyNanos = nanos;
        }
        if (direction.includes(Direction.DOWNSTREAM)) {
            downstreamLatencyNanos = nanos;
        }
        signal();
    }

    /** Stops forwarding in {@code direction} until {@link #resume()}; connections stay open. */
    public void blackhole(Direction direction) {
        Objects.requireNonNull(direction, "direction must not be null");
        if (direction.includes(Direction.UPSTREAM)) {
            upstreamBlocked = true;
        }
        if (direction.includes(Direction.DOWNSTREAM)) {
            downstreamBlocked = true;
        }
        signal();
    }

    /** Forwards again in both directions (held data is delivered) and removes latency. */
    public void resume() {
        upstreamBlocked = false;
        downstreamBlocked = false;
        upstreamLatencyNanos = 0;
        downstreamLatencyNanos = 0;
        signal();
    }

    /** Whether {@code direction} (UPSTREAM or DOWNSTREAM) is blackholed. */
    public boolean isBlackholed(Direction direction) {
        return direction == Direction.UPSTREAM
                ? upstreamBlocked
                : direction == Direction.DOWNSTREAM ? downstreamBlocked : upstreamBlocked && downstreamBlocked;
    }

    /** Resets every open connection (both sides get RST). Returns how many were cut. */
    public int cutConnections() {
        List<Connection> all = new ArrayList<>(connections);
        for (Connection c : all) {
            c.reset();
        }
        return all.size();
    }

    /** Bytes forwarded client to server. */
    public long upstreamBytes() {
        return upstreamBytes.get();
    }

    /** Bytes forwarded server to client. */
    public long downstreamBytes() {
        return downstreamBytes.get();
    }

    /** Connections accepted since start. */
    public long acceptedConnections() {
        return accepted.get();
    }

    /** Connections open now. */
    public int openConnections() {
        return connections.size();
    }

    private void signal() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            accepted.incrementAndGet();
            Socket upstream = new Socket();
            try {
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                upstream.connect(new InetSocketAddress(targetHost, targetPort), 5000);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            Connection c = new Connection(connectionIds.incrementAndGet(), client, upstream);
            connections.add(c);
            c.start();
        }
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        cutConnections();
        signal();
        join(acceptor);
        for (Thread t : threads) {
            join(t);
        }
        threads.clear();
    }

    private static void join(Thread t) {
        try {
            t.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing
        }
    }

    private record Chunk(byte[] data, long deliverAtNanos) {}

    /** One proxied connection: a reader and a writer thread per direction. */
    private final class Connection {
        private final Socket client;
        private final Socket upstream;
        private final List<Thread> threads = new ArrayList<>();
        private final AtomicInteger finishedDirections = new AtomicInteger();

        Connection(int id, Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
            String name = threadPrefix + "-c" + id;
            addPump(name + "-up", client, upstream, Direction.UPSTREAM);
            addPump(name + "-down", upstream, client, Direction.DOWNSTREAM);
        }

        private void addPump(String name, Socket from, Socket to, Direction direction) {
            ArrayDeque<Chunk> queue = new ArrayDeque<>();
            boolean[] eof = {false};
            Thread reader = new Thread(() -> read(from, direction, queue, eof), name + "-read");
            Thread writer = new Thread(() -> write(to, direction, queue, eof), name + "-write");
            reader.setDaemon(true);
            writer.setDaemon(true);
            threads.add(reader);
            threads.add(writer);
        }

        void start() {
            TcpProxy.this.threads.addAll(threads);
            threads.forEach(Thread::start);
        }

        private void read(Socket from, Direction direction, ArrayDeque<Chunk> queue, boolean[] eof) {
            byte[] buf = new byte[16384];
            try {
                InputStream in = from.getInputStream();
                int n;
                while ((n = in.read(buf)) != -1) {
                    long latency = direction == Direction.UPSTREAM ? upstreamLatencyNanos : downstreamLatencyNanos;
                    byte[] data = java.util.Arrays.copyOf(buf, n);
                    lock.lock();
                    try {
                        queue.add(new Chunk(data, System.nanoTime() + latency));
                        changed.signalAll();
                    } finally {
                        lock.unlock();
                    }
                }
            } catch (IOException e) {
                // reset or closed
            }
            lock.lock();
            try {
                eof[0] = true;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        private void write(Socket to, Direction direction, ArrayDeque<Chunk> queue, boolean[] eof) {
            try {
                OutputStream out = to.getOutputStream();
                while (true) {
                    Chunk chunk;
                    lock.lock();
                    try {
                        while (true) {
                            if (closed || to.isClosed()) {
                                return;
                            }
                            boolean blocked = direction == Direction.UPSTREAM ? upstreamBlocked : downstreamBlocked;
                            Chunk head = queue.peek();
                            if (head == null) {
                                if (eof[0]) {
                                    try {
                                        to.shutdownOutput();
                                    } catch (IOException e) {
                                        // peer gone
                                    }
                                    return;
                                }
                                changed.await();
                                continue;
                            }
                            if (blocked) {
                                changed.await();
                                continue;
                            }
                            long wait = head.deliverAtNanos() - System.nanoTime();
                            if (wait > 0) {
                                changed.awaitNanos(wait);
                                continue;
                            }
                            chunk = queue.poll();
                            break;
                        }
                    } finally {
                        lock.unlock();
                    }
                    // counted before the write, so a peer that has read the bytes sees them counted
                    (direction == Direction.UPSTREAM ? upstreamBytes : downstreamBytes).addAndGet(chunk.data().length);
                    out.write(chunk.data());
                    out.flush();
                }
            } catch (IOException e) {
                reset();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                if (finishedDirections.incrementAndGet() == 2) {
                    closeQuietly(client);
                    closeQuietly(upstream);
                    connections.remove(this);
                }
            }
        }

        void reset() {
            for (Socket s : List.of(client, upstream)) {
                try {
                    s.setSoLinger(true, 0);
                } catch (SocketException e) {
                    // already closed
                }
                closeQuietly(s);
            }
            connections.remove(this);
            signal();
        }
    }
}
