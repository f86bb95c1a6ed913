package io.distlock.nemesis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Samples a soak run at the end of every minute: asks each running client JVM for a {@link
 * SoakResults.ClientSample} (its answer arrives on its own, tagged with the minute, even from a client
 * paused at that moment) and reads the servers' connections and memory through {@link
 * Topology#probes()}. A node that does not answer (it is being restarted) is asked again every second
 * for up to 10 s; if it still does not, that minute's connection count is unknown (-1).
 */
final class SoakSampler implements AutoCloseable {
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long RETRY_FOR_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Topology topology;
    private final Supplier<List<ClientProcess>> clients;
    private final long start;
    private final long every;
    private final List<SoakResults.ClientSample> clientSamples = Collections.synchronizedList(new ArrayList<>());
    private final List<SoakResults.ServerSample> serverSamples = Collections.synchronizedList(new ArrayList<>());
    private final Thread thread;
    private volatile long endAt = Long.MAX_VALUE;

    /** Samples from {@code start} ({@code System.nanoTime}) every {@code every} nanoseconds. */
    SoakSampler(Topology topology, Supplier<List<ClientProcess>> clients, long start, long every) {
        this.topology = topology;
        this.clients = clients;
        this.start = start;
        this.every = every;
        this.thread = new Thread(this::loop, "distlock-nemesis-soak-sampler");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Records a client's sample (a {@link ClientProcess#onSample} sink). */
    void add(SoakResults.ClientSample s) {
        clientSamples.add(s);
    }

    private void loop() {
        for (int minute = 0; ; minute++) {
            long mark = start + (minute + 1) * every;
            long left;
            while ((left = mark - System.nanoTime()) > 0 && mark - endAt <= 0) {
                LockSupport.parkNanos(this, Math.min(left, RETRY_NANOS));
            }
            if (mark - endAt > 0 || Thread.currentThread().isInterrupted()) {
                return;
            }
            for (ClientProcess c : clients.get()) {
                c.sample(minute);
            }
            serverSamples.add(servers(minute));
        }
    }

    private SoakResults.ServerSample servers(int minute) {
        List<ServerProbe> probes = topology.probes();
        long connections = 0;
        long rss = 0;
        int answered = 0;
        for (ServerProbe p : probes) {
            long deadline = System.nanoTime() + RETRY_FOR_NANOS;
            OptionalLong n = p.connections();
            while (n.isEmpty() && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(this, RETRY_NANOS);
                n = p.connections();
            }
            if (n.isPresent()) {
                answered++;
                connections += n.getAsLong();
            }
            long r = p.rssBytes();
            rss += Math.max(0, r);
        }
        return new SoakResults.ServerSample(
                minute, answered == probes.size() ? connections : -1, rss, answered, probes.size());
    }

    /** The minutes sampled so far: every minute that ended before {@link #close()}. */
    int minutes() {
        return serverSamples.size();
    }

    /** Which connection count the probes read. */
    String connectionsMetric() {
        List<ServerProbe> probes = topology.probes();
        return probes.isEmpty() ? "not measured" : probes.get(0).metric();
    }

    List<SoakResults.ClientSample> clientSamples() {
        synchronized (clientSamples) {
            return List.copyOf(clientSamples);
        }
    }

    List<SoakResults.ServerSample> serverSamples() {
        synchronized (serverSamples) {
            return List.copyOf(serverSamples);
        }
    }

    /** Takes the samples of every minute that has ended, then stops. */
    @Override
    public void close() {
        endAt = System.nanoTime();
        LockSupport.unpark(thread);
        try {
            thread.join(TimeUnit.MINUTES.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
