package io.distlock.nemesis;

import io.distlock.testing.servers.SupervisedProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The parent's handle on one {@link NemesisClientMain} child JVM: starts it, collects its events
 * into a shared queue, knows whether one of its lock threads currently holds the lock, and pauses,
 * resumes, kills, samples or stops it. A child with several lock threads reports each as its own
 * client, {@code <id>.t<k>}.
 */
final class ClientProcess implements AutoCloseable {
    /** What a client needs to know to run. */
    record Spec(
            String uri,
            String lock,
            String jdbcUrl,
            String user,
            String password,
            String account,
            long maxWaitMs,
            long workMs,
            boolean broken,
            int threads) {
        /** One lock thread per child. */
        Spec(
                String uri,
                String lock,
                String jdbcUrl,
                String user,
                String password,
                String account,
                long maxWaitMs,
                long workMs,
                boolean broken) {
            this(uri, lock, jdbcUrl, user, password, account, maxWaitMs, workMs, broken, 1);
        }
    }

    /** What the parent knows of one lock thread of the child, from its events. */
    private static final class LockThread {
        volatile long holding = -1;
        volatile boolean beforeWrite;
        volatile long lastHold = -1;
        volatile long acquiredAt = Long.MIN_VALUE;
    }

    private final String id;
    private final SupervisedProcess process;
    private final Path dir;
    private final OutputStream stdin;
    private final Consumer<Event> sink;
    private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
    private final CountDownLatch ready = new CountDownLatch(1);
    private final CountDownLatch bye = new CountDownLatch(1);
    private final Thread reader;
    /** By client name ({@code id}, or {@code id.t<k>} with several lock threads). */
    private final Map<String, LockThread> threads = new java.util.concurrent.ConcurrentHashMap<>();

    private volatile boolean paused;
    private volatile Consumer<SoakResults.ClientSample> samples = s -> {};

    private ClientProcess(String id, SupervisedProcess process, Path dir, Consumer<Event> sink) {
        this.id = id;
        this.process = process;
        this.dir = dir;
        this.stdin = process.stdin();
        this.sink = sink;
        this.reader = new Thread(this::readLoop, "distlock-nemesis-client-" + id + "-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts a child; returns once it is READY (or throws with its log). */
    static ClientProcess start(String id, Spec spec, String classPath, Consumer<Event> sink, Duration startTimeout) {
        Path dir;
        try {
            dir = Files.createTempDirectory("distlock-nemesis-client-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for client " + id, e);
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(
                "-Xmx96m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Xshare:auto",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        cmd.add("-cp");
        cmd.add(absolute(classPath));
        cmd.add(NemesisClientMain.class.getName());
        cmd.addAll(List.of("--client", id, "--lock", spec.lock(), "--jdbc", spec.jdbcUrl(), "--user", spec.user()));
        cmd.addAll(List.of("--account", spec.account()));
        cmd.addAll(List.of("--maxWaitMs", Long.toString(spec.maxWaitMs()), "--workMs", Long.toString(spec.workMs())));
        if (spec.threads() > 1) {
            cmd.addAll(List.of("--threads", Integer.toString(spec.threads())));
        }
        // secrets (the database password, a lock URI that may carry credentials) go in the child's
        // environment, which only its user can read, not on its command line, which `ps` shows to all
        Map<String, String> env = new java.util.HashMap<>();
        env.put(NemesisClientMain.PASSWORD_ENV, spec.password());
        if (spec.broken()) {
            cmd.add("--broken");
        } else {
            env.put(NemesisClientMain.URI_ENV, spec.uri());
        }
        SupervisedProcess p =
                SupervisedProcess.start("nemesis-client-" + id, cmd, dir, dir.resolve("client.log"), true, dir, env);
        ClientProcess c = new ClientProcess(id, p, dir, sink);
        try {
            long deadline = System.nanoTime() + startTimeout.toNanos();
            while (!c.ready.await(50, TimeUnit.MILLISECONDS)
                    && c.bye.getCount() > 0
                    && System.nanoTime() - deadline < 0) {
                // wait for READY, or the child's end
            }
            if (c.ready.getCount() > 0) {
                throw new IllegalStateException("client " + id + " not READY within " + startTimeout.toMillis()
                        + " ms. Log:\n" + p.logTail(3000));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            c.close();
            throw new IllegalStateException("interrupted while starting client " + id, e);
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /** The child runs in its own directory: make every class path entry absolute. */
    private static String absolute(String classPath) {
        return java.util.Arrays.stream(classPath.split(java.io.File.pathSeparator))
                .filter(e -> !e.isEmpty())
                .map(e -> Paths.get(e).toAbsolutePath().toString())
                .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
    }

    private void readLoop() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.stdout(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                int space = line.indexOf(' ');
                if (line.startsWith("E") && space > 0) {
                    // "E <event>" or, from lock thread k of several, "E.t<k> <event>"
                    Event e = Event.parse(id + line.substring(1, space), line.substring(space + 1));
                    LockThread t = threads.computeIfAbsent(e.client(), k -> new LockThread());
                    switch (e.type()) {
                        case "ACQUIRED" -> {
                            t.holding = e.hold();
                            t.lastHold = e.hold();
                            t.acquiredAt = e.nanos();
                            t.beforeWrite = true;
                        }
                        case "RELEASED" -> t.holding = -1;
                        case "WRITE_OK", "WRITE_STALE", "WRITE_ERROR" -> t.beforeWrite = false;
                        default -> {}
                    }
                    sink.accept(e);
                } else if (line.startsWith("M ")) {
                    samples.accept(SoakResults.ClientSample.parse(id, line.substring(2)));
                } else if (line.startsWith("READY ")) {
                    ready.countDown();
                } else if (line.equals("BYE")) {
                    bye.countDown();
                } else {
                    replies.add(line);
                }
            }
        } catch (IOException | RuntimeException e) {
            // child gone
        }
        threads.values().forEach(t -> t.holding = -1);
        bye.countDown();
    }

    String id() {
        return id;
    }

    long pid() {
        return process.pid();
    }

    /** Whether a lock thread's last event says it holds the lock (and the client has not been killed). */
    boolean isHolding() {
        return process.isAlive() && !paused && threads.values().stream().anyMatch(t -> t.holding >= 0);
    }

    /** Asks the child for a {@link SoakResults.ClientSample} of {@code minute}; it arrives at {@link #onSample}. */
    void sample(int minute) {
        send("SAMPLE " + minute);
    }

    /** Where the child's samples go. */
    void onSample(Consumer<SoakResults.ClientSample> sink) {
        this.samples = sink;
    }

    /** Asks the child for its {@code System.nanoTime()}. */
    long clock(Duration timeout) throws InterruptedException {
        send("CLOCK");
        String reply = replies.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (reply == null || !reply.startsWith("CLOCK ")) {
            throw new IllegalStateException("client " + id + " did not answer CLOCK (got '" + reply + "')");
        }
        return Long.parseLong(reply.substring(6));
    }

    /**
     * When the acquisition of the lock thread that holds the lock and has not written returned (the
     * latest acquisition if none does; {@code System.nanoTime}).
     */
    long acquiredAt() {
        long latest = Long.MIN_VALUE;
        for (LockThread t : threads.values()) {
            if (t.holding >= 0 && t.beforeWrite) {
                return t.acquiredAt;
            }
            latest = Math.max(latest, t.acquiredAt);
        }
        return latest;
    }

    /** Whether a lock thread holds the lock and has not written yet (the moment to pause the client). */
    boolean isAboutToWrite() {
        return process.isAlive() && !paused && threads.values().stream().anyMatch(t -> t.holding >= 0 && t.beforeWrite);
    }

    void pause() {
        paused = true;
        process.pause();
    }

    void resume() {
        process.resume();
        paused = false;
    }

    /**
     * Asks the client to stop at its next moment of holding the lock before writing; returns whether
     * it did within {@code timeout}. A client that stops there can be killed while it holds.
     */
    boolean park(Duration timeout) throws InterruptedException {
        send("PARK");
        long deadline = System.nanoTime() + timeout.toNanos();
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            String reply = replies.poll(left, TimeUnit.NANOSECONDS);
            if (reply != null && reply.startsWith("PARKED ")) {
                return true;
            }
        }
        return false;
    }

    /** SIGKILL; a dead process believes nothing, so its current holdings end now (KILLED events). */
    void kill() {
        long now = System.nanoTime(); // it can do nothing after the signal
        process.kill();
        threads.forEach((client, t) -> {
            t.holding = -1;
            if (t.lastHold >= 0) {
                sink.accept(new Event(client, "KILLED", now, t.lastHold, -1, Event.NONE, "SIGKILL"));
            }
        });
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Tells the child to finish its round and exit; kills it if it does not within the timeout. */
    void stop(Duration timeout) {
        if (paused) {
            resume();
        }
        if (process.isAlive()) {
            send("STOP");
            try {
                bye.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        close();
    }

    private synchronized void send(String line) {
        try {
            stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException e) {
            // the child is gone; its events end here
        }
    }

    String logTail() {
        return process.logTail(4000);
    }

    @Override
    public void close() {
        process.close();
        try {
            reader.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // best effort
        }
    }

    @Override
    public String toString() {
        return "client " + id + " (pid " + process.pid() + ")";
    }
}
