package io.distlock.nemesis;

import io.distlock.Lease;
import io.distlock.LockProvider;
import io.distlock.fencing.JdbcFencingGuard;
import io.distlock.fencing.StaleTokenException;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One lock client of a nemesis run, in its own JVM. It loops until told to stop: acquire the lock
 * (waiting at most {@code maxWaitMs}), "work" for {@code workMs}, then do the money transfer on the
 * guarded resource in one transaction — check the fencing token with {@link JdbcFencingGuard}, read
 * the balance ({@code FOR UPDATE}), write balance + 1, append a row to the write log — and release.
 * It does <em>not</em> check its lease before writing: a holder that was paused past its lease
 * writes anyway, and the resource must reject it.
 *
 * <p>Every step is printed on stdout as one event line, {@code E <type> <nanoTime> <hold> <token|->
 * <deadline|-> <detail>}; the parent merges the events of all clients (one machine: one
 * {@code CLOCK_MONOTONIC}). Commands on stdin: {@code CLOCK} (answers {@code CLOCK <nanoTime>}),
 * {@code STOP} (finish the current round, release, answer {@code BYE}, exit), {@code PARK} (at the next
 * moment it holds the lock and has not written, answer {@code PARKED <hold>} and wait: the nemesis kills
 * it there), {@code SAMPLE <minute>} (answer {@code M <minute> <nanoTime> <heap bytes after the last full
 * GC> <live threads> <full GCs since the last sample> <1 if this sample forced the full GC, else 0>}: if
 * no full GC ran since the last sample, the client forces one with {@code System.gc()}, so every sample
 * has a fresh figure of the live heap). EOF on stdin (the parent died) exits too.
 *
 * <p>{@code --threads N} runs N lock threads on one provider, each an independent lock client with its
 * own rounds and its own connection to the resource; their event lines start with {@code E.t<k>}
 * instead of {@code E} (thread k of N), and {@code ACQUIRED}'s detail is {@code wait=<ns>}, the time
 * {@code tryAcquire} took.
 *
 * <p>{@code --broken} replaces the lock with a deliberately wrong one that grants every request at
 * once with the same token, so tests can prove the checker catches a broken backend.
 */
public final class NemesisClientMain {
    private static final Object OUT_LOCK = new Object();
    private static final long NONE = Long.MIN_VALUE;
    private static PrintStream out;

    private final Map<String, String> args;
    private final CountDownLatch stop = new CountDownLatch(1);
    /** Set by {@code PARK}: at its next point of holding the lock before writing, one thread waits to be killed. */
    private final java.util.concurrent.atomic.AtomicBoolean park = new java.util.concurrent.atomic.AtomicBoolean();

    private final JdbcFencingGuard guard = JdbcFencingGuard.create(Resource.FENCE_TABLE);
    /** Answers {@code SAMPLE}: one thread, so a forced full GC never holds up the other commands. */
    private final java.util.concurrent.ExecutorService sampler =
            java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "distlock-nemesis-client-sampler");
                t.setDaemon(true);
                return t;
            });

    private final JvmSample jvm = new JvmSample();

    private NemesisClientMain(Map<String, String> args) {
        this.args = args;
    }

    /** Environment variable with the guarded resource's database password. */
    static final String PASSWORD_ENV = "DISTLOCK_NEMESIS_DB_PASSWORD";
    /** Environment variable with the lock URI (it may carry credentials). */
    static final String URI_ENV = "DISTLOCK_NEMESIS_LOCK_URI";

    /**
     * Entry point; arguments are {@code --name value} pairs (see {@link ClientProcess}); the
     * password and the lock URI come from {@value #PASSWORD_ENV} and {@value #URI_ENV}.
     */
    public static void main(String[] argv) throws Exception {
        out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i < argv.length; i++) {
            if (argv[i].equals("--broken")) {
                a.put("broken", "true");
            } else if (argv[i].startsWith("--") && i + 1 < argv.length) {
                a.put(argv[i].substring(2), argv[++i]);
            } else {
                System.err.println("unexpected argument '" + argv[i] + "'");
                System.exit(2);
            }
        }
        putEnv(a, "password", PASSWORD_ENV);
        putEnv(a, "uri", URI_ENV);
        new NemesisClientMain(a).run();
        System.exit(0);
    }

    private static void putEnv(Map<String, String> args, String name, String variable) {
        String value = System.getenv(variable);
        if (value != null) {
            args.put(name, value);
        }
    }

    private void run() throws Exception {
        boolean broken = args.containsKey("broken");
        java.util.List<AutoCloseable> alsoClose = new java.util.ArrayList<>();
        LockProvider provider = broken ? null : openProvider(args.get("uri"), alsoClose);
        Thread commands = new Thread(this::readCommands, "distlock-nemesis-client-commands");
        commands.setDaemon(true);
        commands.start();
        println("READY " + ProcessHandle.current().pid() + " " + System.nanoTime());
        int threads = Integer.parseInt(args.getOrDefault("threads", "1"));
        java.util.List<Thread> workers = new java.util.ArrayList<>();
        try {
            for (int t = 1; t <= threads; t++) {
                Worker w = new Worker(threads == 1 ? "" : ".t" + t, provider);
                Thread thread = new Thread(w::loop, "distlock-nemesis-client-lock-" + t);
                workers.add(thread);
                thread.start();
            }
            for (Thread thread : workers) {
                thread.join();
            }
        } finally {
            if (provider != null) {
                try {
                    provider.close();
                } catch (RuntimeException e) {
                    System.err.println("close failed: " + e);
                }
            }
            for (AutoCloseable c : alsoClose) {
                try {
                    c.close();
                } catch (Exception e) {
                    System.err.println("close failed: " + e);
                }
            }
            println("BYE");
        }
    }

    /** One lock thread: its rounds, its connection to the resource, its tag on the event lines. */
    private final class Worker {
        private final String tag;
        private final LockProvider provider;
        private Connection connection;

        Worker(String tag, LockProvider provider) {
            this.tag = tag;
            this.provider = provider;
        }

        void loop() {
            try {
                rounds();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                closeConnection();
            }
        }

        private void rounds() throws InterruptedException {
            String lockName = args.get("lock");
            Duration maxWait = Duration.ofMillis(Long.parseLong(args.get("maxWaitMs")));
            long workMs = Long.parseLong(args.get("workMs"));
            long hold = 0;
            while (stop.getCount() > 0) {
                hold++;
                Lease lease = null;
                long token;
                if (provider == null) {
                    token = 1;
                    long now = System.nanoTime();
                    event(tag, "ACQUIRED", now, hold, token, now + TimeUnit.SECONDS.toNanos(1), "");
                } else {
                    Optional<Lease> l;
                    long asked = System.nanoTime();
                    try {
                        l = provider.lock(lockName).tryAcquire(maxWait);
                    } catch (RuntimeException e) {
                        event(tag, "ACQUIRE_ERROR", System.nanoTime(), hold, -1, NONE, String.valueOf(e));
                        stop.await(100, TimeUnit.MILLISECONDS);
                        continue;
                    }
                    if (l.isEmpty()) {
                        event(tag, "NOT_ACQUIRED", System.nanoTime(), hold, -1, NONE, "");
                        continue;
                    }
                    lease = l.get();
                    long now = System.nanoTime();
                    token = lease.fencingToken().orElse(-1);
                    event(
                            tag,
                            "ACQUIRED",
                            now,
                            hold,
                            token,
                            now + lease.remainingValidity().toNanos(),
                            "wait=" + (now - asked));
                    long h = hold;
                    lease.lost().thenAccept(e -> event(tag, "LOST", System.nanoTime(), h, token, NONE, ""));
                }
                if (workMs > 0) {
                    Thread.sleep(workMs); // the "work" between acquiring and writing
                }
                if (lease != null && lease.isValid()) {
                    // a renewal may have moved the deadline: record the belief the write is made under
                    long now = System.nanoTime();
                    event(
                            tag,
                            "VALID",
                            now,
                            hold,
                            token,
                            now + lease.remainingValidity().toNanos(),
                            "");
                }
                if (park.compareAndSet(true, false)) {
                    // the nemesis is about to SIGKILL this holder: stop here, holding, before the write
                    println("PARKED " + hold);
                    stop.await();
                }
                write(hold, token);
                event(tag, "RELEASED", System.nanoTime(), hold, token, NONE, "");
                if (lease != null) {
                    try {
                        lease.release();
                    } catch (RuntimeException e) {
                        event(tag, "RELEASE_ERROR", System.nanoTime(), hold, token, NONE, String.valueOf(e));
                    }
                }
            }
        }

        private void write(long hold, long token) {
            if (token < 0) {
                event(tag, "WRITE_ERROR", System.nanoTime(), hold, token, NONE, "no fencing token");
                return;
            }
            String account = args.get("account");
            try {
                Connection c = connection();
                try {
                    guard.check(c, account, token);
                    long balance;
                    try (PreparedStatement ps = c.prepareStatement(
                            "SELECT balance FROM " + Resource.ACCOUNTS + " WHERE id = ? FOR UPDATE")) {
                        ps.setString(1, account);
                        try (ResultSet rs = ps.executeQuery()) {
                            if (!rs.next()) {
                                throw new SQLException("account " + account + " does not exist");
                            }
                            balance = rs.getLong(1);
                        }
                    }
                    try (PreparedStatement ps =
                            c.prepareStatement("UPDATE " + Resource.ACCOUNTS + " SET balance = ? WHERE id = ?")) {
                        ps.setLong(1, balance + 1);
                        ps.setString(2, account);
                        ps.executeUpdate();
                    }
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Resource.WRITES
                            + " (account, token, client, hold, balance_before) VALUES (?, ?, ?, ?, ?)")) {
                        ps.setString(1, account);
                        ps.setLong(2, token);
                        ps.setString(3, args.get("client") + tag);
                        ps.setLong(4, hold);
                        ps.setLong(5, balance);
                        ps.executeUpdate();
                    }
                    c.commit();
                    event(tag, "WRITE_OK", System.nanoTime(), hold, token, NONE, Long.toString(balance));
                } catch (StaleTokenException e) {
                    c.rollback();
                    event(tag, "WRITE_STALE", System.nanoTime(), hold, token, NONE, Long.toString(e.lastAccepted()));
                }
            } catch (SQLException | RuntimeException e) {
                event(tag, "WRITE_ERROR", System.nanoTime(), hold, token, NONE, String.valueOf(e));
                closeConnection();
            }
        }

        private Connection connection() throws SQLException {
            if (connection == null) {
                Connection c = DriverManager.getConnection(args.get("jdbc"), args.get("user"), args.get("password"));
                try (Statement s = c.createStatement()) {
                    s.execute("SET SESSION innodb_lock_wait_timeout = 10");
                }
                c.setAutoCommit(false);
                connection = c;
            }
            return connection;
        }

        private void closeConnection() {
            if (connection != null) {
                try {
                    connection.close();
                } catch (SQLException e) {
                    // gone already
                }
                connection = null;
            }
        }
    }

    /**
     * Opens the provider, trying again for up to 30 s while the backend is unavailable: on a loaded
     * machine a first connection can miss the short connection timeout of the run, before any fault.
     */
    static LockProvider openProvider(String uri, java.util.List<AutoCloseable> alsoClose) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return MappedRedis.open(uri, alsoClose);
            } catch (io.distlock.BackendUnavailableException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                System.err.println("backend unavailable at start, trying again: " + e.getMessage());
                TimeUnit.MILLISECONDS.sleep(200);
            }
        }
    }

    private void readCommands() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.equals("CLOCK")) {
                    println("CLOCK " + System.nanoTime());
                } else if (line.equals("PARK")) {
                    park.set(true);
                } else if (line.startsWith("SAMPLE ")) {
                    String minute = line.substring(7);
                    sampler.execute(() -> println("M " + minute + " " + jvm.sample()));
                } else if (line.equals("STOP")) {
                    stop.countDown();
                }
            }
        } catch (Exception e) {
            // parent gone
        }
        if (stop.getCount() > 0) {
            // the parent died: exit without waiting for the loop
            Runtime.getRuntime().halt(3);
        }
    }

    private static void event(
            String tag, String type, long nanos, long hold, long token, long deadline, String detail) {
        println("E" + tag + " " + type + " " + nanos + " " + hold + " " + (token < 0 ? "-" : Long.toString(token)) + " "
                + (deadline == NONE ? "-" : Long.toString(deadline)) + " "
                + detail.replace('\n', ' ').replace('\r', ' '));
    }

    private static void println(String line) {
        synchronized (OUT_LOCK) {
            out.println(line);
        }
    }
}
