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
 *   <li>{@link #setLatency(Direction, Duration)} delays every chunk by the given time: a fixed
 *       one-way delay per direction, as a link of that length would add. Each chunk is delivered
 *       no earlier than its arrival plus the latency, and within some microseconds of it ({@link
 *       #lateness()} says how close); order is kept, also when the latency changes.
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
    private final LatenessLog lateness = new LatenessLog();
    private final AtomicLong upstreamBytes = new AtomicLong();
    private final AtomicLong downstreamBytes = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong roundTrips = new AtomicLong();
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

    /**
     * Round trips seen since start: on each connection, a chunk from the client that follows a chunk
     * from the server (or is the connection's first) starts one. For a request-reply protocol this
     * counts the client's waits for the server: requests written together (a pipeline) count once,
     * however many they are and however many reads they take; a request that overlaps the replies of
     * earlier ones on the same connection joins their round trip.
     */
    public long roundTrips() {
        return roundTrips.get();
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
        connections.forEach(Connection::signal);
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

    private record Chunk(byte[] data, long deliverAtNanos, boolean delayed) {}

    /** One proxied connection: a {@link Pump} per direction. */
    private final class Connection {
        private final Socket client;
        private final Socket upstream;
        private final List<Pump> pumps = new ArrayList<>(2);
        private final AtomicInteger finishedDirections = new AtomicInteger();
        /** Whether the server sent something since the client last did: the client's next chunk starts a round trip. */
        private final java.util.concurrent.atomic.AtomicBoolean answered =
                new java.util.concurrent.atomic.AtomicBoolean(true);

        Connection(int id, Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
            String name = threadPrefix + "-c" + id;
            pumps.add(new Pump(this, name + "-up", client, upstream, Direction.UPSTREAM));
            pumps.add(new Pump(this, name + "-down", upstream, client, Direction.DOWNSTREAM));
        }

        void start() {
            pumps.forEach(p -> TcpProxy.this.threads.addAll(p.threads));
            pumps.forEach(Pump::start);
        }

        void signal() {
            pumps.forEach(Pump::signal);
        }

        void finished() {
            if (finishedDirections.incrementAndGet() == 2) {
                closeQuietly(client);
                closeQuietly(upstream);
                connections.remove(this);
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

    /**
     * One direction of a connection: a reader thread that stamps each chunk with its delivery time
     * (arrival + the direction's latency) and a writer thread that delivers the chunks in order, each
     * when it is due. Each pump has its own lock, so that a chunk wakes only its own writer.
     *
     * <p>Timed waits of the JVM oversleep by the operating system's timer slack (about 50 µs on
     * Linux) and a thread's wake-up; at a latency of a few hundred microseconds that would add a
     * quarter to the delay. So the writer parks until a learned lead time before the chunk is due
     * (the lead follows the oversleep it observes), and spins the last few microseconds: chunks
     * leave close to their due time and never before it.
     */
    private final class Pump {
        private final Connection connection;
        private final Socket from;
        private final Socket to;
        private final Direction direction;
        private final List<Thread> threads = new ArrayList<>(2);
        private final ReentrantLock pumpLock = new ReentrantLock();
        private final Condition changed = pumpLock.newCondition();
        private final ArrayDeque<Chunk> queue = new ArrayDeque<>();
        private boolean eof;
        /** How long before a chunk is due the writer asks to wake (see the class comment). */
        private long leadNanos = INITIAL_LEAD_NANOS;

        Pump(Connection connection, String name, Socket from, Socket to, Direction direction) {
            this.connection = connection;
            this.from = from;
            this.to = to;
            this.direction = direction;
            Thread reader = new Thread(this::read, name + "-read");
            Thread writer = new Thread(this::write, name + "-write");
            reader.setDaemon(true);
            writer.setDaemon(true);
            threads.add(reader);
            threads.add(writer);
        }

        void start() {
            threads.forEach(Thread::start);
        }

        void signal() {
            pumpLock.lock();
            try {
                changed.signalAll();
            } finally {
                pumpLock.unlock();
            }
        }

        private boolean blocked() {
            return direction == Direction.UPSTREAM ? upstreamBlocked : downstreamBlocked;
        }

        private void read() {
            byte[] buf = new byte[16384];
            try {
                InputStream in = from.getInputStream();
                int n;
                while ((n = in.read(buf)) != -1) {
                    if (direction == Direction.DOWNSTREAM) {
                        connection.answered.set(true);
                    } else if (connection.answered.getAndSet(false)) {
                        roundTrips.incrementAndGet();
                    }
                    long latency = direction == Direction.UPSTREAM ? upstreamLatencyNanos : downstreamLatencyNanos;
                    byte[] data = java.util.Arrays.copyOf(buf, n);
                    pumpLock.lock();
                    try {
                        boolean wasEmpty = queue.isEmpty();
                        queue.add(new Chunk(data, System.nanoTime() + latency, latency > 0));
                        if (wasEmpty) {
                            changed.signalAll(); // a new head; chunks behind it do not change the writer's wait
                        }
                    } finally {
                        pumpLock.unlock();
                    }
                }
            } catch (IOException e) {
                // reset or closed
            }
            pumpLock.lock();
            try {
                eof = true;
                changed.signalAll();
            } finally {
                pumpLock.unlock();
            }
        }

        private void write() {
            try {
                OutputStream out = to.getOutputStream();
                Chunk chunk;
                while ((chunk = nextDue()) != null) {
                    // counted before the write, so a peer that has read the bytes sees them counted
                    (direction == Direction.UPSTREAM ? upstreamBytes : downstreamBytes).addAndGet(chunk.data().length);
                    out.write(chunk.data());
                    out.flush();
                }
            } catch (IOException e) {
                connection.reset();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                connection.finished();
            }
        }

        /** The next chunk once it is due and its direction flows, or null when the pump is done. */
        private Chunk nextDue() throws InterruptedException {
            pumpLock.lock();
            try {
                while (true) {
                    if (closed || to.isClosed()) {
                        return null;
                    }
                    Chunk head = queue.peek();
                    if (head == null) {
                        if (eof) {
                            try {
                                to.shutdownOutput();
                            } catch (IOException e) {
                                // peer gone
                            }
                            return null;
                        }
                        changed.await();
                        continue;
                    }
                    if (blocked()) {
                        changed.await();
                        continue;
                    }
                    long now = System.nanoTime();
                    long wait = head.deliverAtNanos() - now;
                    if (wait <= 0) {
                        queue.poll();
                        if (head.delayed()) {
                            lateness.record(-wait);
                        }
                        return head;
                    }
                    if (wait > leadNanos + SPIN_NANOS) {
                        long asked = wait - leadNanos;
                        if (changed.awaitNanos(asked) <= 0) {
                            learnLead(System.nanoTime() - (now + asked));
                        }
                        continue;
                    }
                    // the last few microseconds: spin, without the lock, so the reader can queue
                    pumpLock.unlock();
                    try {
                        while (head.deliverAtNanos() - System.nanoTime() > 0 && !closed) {
                            Thread.onSpinWait();
                        }
                    } finally {
                        pumpLock.lock();
                    }
                }
            } finally {
                pumpLock.unlock();
            }
        }

        /** Moves the lead an eighth of the way towards an observed oversleep (outliers clipped). */
        private void learnLead(long oversleptNanos) {
            long o = Math.max(0, Math.min(MAX_LEAD_NANOS, oversleptNanos));
            leadNanos += (o - leadNanos) / 8;
        }
    }

    /** The first guess of a timed wait's oversleep: Linux's default timer slack and a wake-up. */
    private static final long INITIAL_LEAD_NANOS = 60_000;
    /** The lead never grows past this, whatever a loaded machine's oversleep. */
    private static final long MAX_LEAD_NANOS = 200_000;
    /** A wait shorter than the lead plus this is spun, not parked. */
    private static final long SPIN_NANOS = 20_000;

    /**
     * How late delayed chunks left the proxy beyond their due time (arrival + the latency set): the
     * number of chunks since {@link #resetLateness()}, and the median, 99th percentile and maximum
     * over the last {@value LatenessLog#CAPACITY} of them. Chunks sent with no latency set are not
     * counted.
     *
     * @param chunks delayed chunks delivered since the last reset
     * @param p50 median lateness
     * @param p99 99th percentile of the lateness
     * @param max largest lateness
     */
    public record Lateness(long chunks, Duration p50, Duration p99, Duration max) {}

    /** How late delayed chunks were delivered beyond the latency set (see {@link Lateness}). */
    public Lateness lateness() {
        return lateness.summary();
    }

    /** Forgets the lateness recorded so far. */
    public void resetLateness() {
        lateness.reset();
    }

    /** The lateness of the last delayed chunks, with a count and the maximum since the last reset. */
    private static final class LatenessLog {
        static final int CAPACITY = 4096;
        private final long[] recent = new long[CAPACITY];
        private long count;
        private long max;

        synchronized void record(long nanos) {
            recent[(int) (count++ % CAPACITY)] = nanos;
            max = Math.max(max, nanos);
        }

        synchronized void reset() {
            count = 0;
            max = 0;
        }

        synchronized Lateness summary() {
            int n = (int) Math.min(count, CAPACITY);
            if (n == 0) {
                return new Lateness(0, Duration.ZERO, Duration.ZERO, Duration.ZERO);
            }
            long[] sorted = java.util.Arrays.copyOf(recent, n);
            java.util.Arrays.sort(sorted);
            return new Lateness(
                    count,
                    Duration.ofNanos(sorted[(n - 1) / 2]),
                    Duration.ofNanos(sorted[Math.min(n - 1, (int) Math.ceil(n * 0.99) - 1)]),
                    Duration.ofNanos(max));
        }
    }
}
