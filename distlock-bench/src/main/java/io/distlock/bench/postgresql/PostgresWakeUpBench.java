package io.distlock.bench.postgresql;

import io.distlock.postgresql.PostgresLockOptions;
import io.distlock.postgresql.internal.PostgresDialect;
import io.distlock.testing.servers.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.PGConnection;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.QueryExecutor;

/**
 * How a waiter of lock-postgresql should learn that the lock is free, measured on a PostgreSQL it
 * starts itself with plain JDBC: the hand-off time from the holder's release (taken just before it
 * sends its COMMIT) to the moment the next holder has the row locked, with 1 and with 50 waiters
 * (each waiter a client of its own, all on one lock), in rounds that alternate the variants.
 *
 * <ul>
 *   <li>{@code rowlock}: each waiter blocks in the lock's wait statement ({@code SELECT … FOR UPDATE}
 *       bounded by {@code lock_timeout}, as {@link PostgresDialect#waitSql()}); the holder's {@code
 *       COMMIT} grants the row to one of them inside the server.
 *   <li>{@code notify}: the holder releases with {@code NOTIFY <channel>; COMMIT} (one round trip);
 *       each waiter listens on a connection of its own ({@code LISTEN}, one per client) and, woken,
 *       claims with the lock's {@code SKIP LOCKED} statement; a waiter that finds the row taken waits
 *       for the next notification. Every waiter wakes on every release.
 * </ul>
 *
 * Also measured in the same rounds: {@code select1} (a {@code SELECT 1} round trip) and {@code
 * notify_floor} (a {@code NOTIFY} committed on one connection until another connection's listener
 * has it, plus one {@code SELECT 1} there), the floor of a notification-driven hand-off.
 *
 * <p>Arguments: {@code [--rounds N]} (default 5), {@code [--seconds S]} per variant and round
 * (default 2), {@code [--out FILE]} (default {@code target/benchmarks/postgres-wakeup.json}). Run
 * with {@code ./distlock bench PostgresWakeUpBench [args]}.
 */
public final class PostgresWakeUpBench {
    private static final PostgresDialect SQL = PostgresDialect.of(PostgresLockOptions.defaults());
    private static final String LEASE_MS = "30000";

    private PostgresWakeUpBench() {}

    public static void main(String[] args) throws Exception {
        int rounds = 5;
        double seconds = 2;
        Path file = Path.of("target", "benchmarks", "postgres-wakeup.json");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--out" -> file = Path.of(args[++i]);
                default ->
                    throw new IllegalArgumentException(
                            "unknown argument " + args[i] + " (usage: [--rounds N] [--seconds S] [--out FILE])");
            }
        }
        Map<String, List<Long>> samples = new LinkedHashMap<>();
        try (PostgresServer pg = PostgresServer.start()) {
            try (Connection c = pg.connect();
                    Statement s = c.createStatement()) {
                for (String ddl : SQL.ddl()) {
                    s.execute(ddl);
                }
                s.execute(SQL.insertSql().replace("?", "'l'"));
            }
            long nanos = (long) (seconds * 1e9);
            for (int r = 0; r < rounds; r++) {
                for (int waiters : new int[] {1, 50}) {
                    add(samples, "rowlock_" + waiters, handOffs(pg, waiters, false, nanos));
                    add(samples, "notify_" + waiters, handOffs(pg, waiters, true, nanos));
                }
                add(samples, "select1", select1(pg, nanos));
                add(samples, "notify_floor", notifyFloor(pg, nanos));
                System.err.println("round " + (r + 1) + " of " + rounds + " done");
            }
        }
        StringBuilder json = new StringBuilder("{\n  \"bench\": \"PostgresWakeUpBench\",\n  \"variants\": {\n");
        int n = 0;
        for (Map.Entry<String, List<Long>> e : samples.entrySet()) {
            long[] v = e.getValue().stream().mapToLong(Long::longValue).sorted().toArray();
            String line = String.format(
                    "    \"%s\": {\"count\": %d, \"p50_us\": %.1f, \"p90_us\": %.1f, \"p99_us\": %.1f}",
                    e.getKey(), v.length, pct(v, 0.5), pct(v, 0.9), pct(v, 0.99));
            json.append(line).append(++n < samples.size() ? ",\n" : "\n");
            System.out.println(line.trim());
        }
        json.append("  }\n}\n");
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, json);
        System.out.println("wrote " + file);
    }

    private static void add(Map<String, List<Long>> samples, String key, List<Long> values) {
        samples.computeIfAbsent(key, k -> new ArrayList<>()).addAll(values);
    }

    private static double pct(long[] sorted, double p) {
        return sorted.length == 0 ? Double.NaN : sorted[(int) Math.min(sorted.length - 1, p * sorted.length)] / 1000.0;
    }

    /**
     * {@code waiters + 1} clients take turns on one lock for {@code nanos}: whoever holds it notes the
     * time and releases; the next holder records the time since then.
     */
    private static List<Long> handOffs(PostgresServer pg, int waiters, boolean notify, long nanos) throws Exception {
        int clients = waiters + 1;
        AtomicLong releasedAt = new AtomicLong();
        AtomicInteger lastHolder = new AtomicInteger(-1);
        AtomicBoolean stop = new AtomicBoolean();
        List<Long> out = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Connection> open = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(clients);
        List<Thread> threads = new ArrayList<>();
        try {
            for (int i = 0; i < clients; i++) {
                Connection lock = pg.connect();
                lock.setAutoCommit(false);
                open.add(lock);
                Connection listen = null;
                if (notify) {
                    listen = pg.connect();
                    open.add(listen);
                    try (Statement s = listen.createStatement()) {
                        s.execute("LISTEN distlock_bench");
                    }
                }
                Connection listener = listen;
                int id = i;
                Thread t = new Thread(
                        () -> {
                            try {
                                clientLoop(id, lock, listener, releasedAt, lastHolder, stop, out);
                            } catch (SQLException e) {
                                if (!stop.get()) {
                                    e.printStackTrace();
                                }
                            } finally {
                                done.countDown();
                            }
                        },
                        "bench-client-" + i);
                t.setDaemon(true);
                threads.add(t);
            }
            threads.forEach(Thread::start);
            TimeUnit.NANOSECONDS.sleep(nanos);
            stop.set(true);
            // wake every waiter: a last release (a row-lock waiter ends at its lock_timeout anyway)
            try (Connection c = pg.connect();
                    Statement s = c.createStatement()) {
                s.execute("NOTIFY distlock_bench");
            }
            done.await(10, TimeUnit.SECONDS);
        } finally {
            for (Connection c : open) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // closing
                }
            }
        }
        synchronized (out) {
            return new ArrayList<>(out);
        }
    }

    /**
     * One client: waits (or claims when notified), records the hand-off, releases; then lets another
     * client take the lock before it competes again, so that every sample is a hand-off to someone
     * else, never the releaser taking the lock back.
     */
    private static void clientLoop(
            int id,
            Connection lock,
            Connection listener,
            AtomicLong releasedAt,
            AtomicInteger lastHolder,
            AtomicBoolean stop,
            List<Long> out)
            throws SQLException {
        PreparedStatement claim = lock.prepareStatement(SQL.claimSql());
        SQL.bindClaim(claim, "l", java.time.Duration.ofMillis(Long.parseLong(LEASE_MS)));
        PreparedStatement wait = lock.prepareStatement(SQL.waitSql());
        SQL.bindWait(wait, "l", java.time.Duration.ofMillis(Long.parseLong(LEASE_MS)), 1000);
        while (!stop.get()) {
            boolean got;
            if (listener == null) {
                try (ResultSet rs = wait.executeQuery()) {
                    got = rs.next();
                } catch (SQLException e) {
                    if (!SQL.isWaitEnded(e)) {
                        throw e;
                    }
                    lock.rollback();
                    continue;
                }
            } else {
                try (ResultSet rs = claim.executeQuery()) {
                    got = rs.next();
                }
                if (!got) {
                    lock.rollback();
                    listener.unwrap(PGConnection.class).getNotifications(1000);
                    continue;
                }
            }
            long now = System.nanoTime();
            long since = releasedAt.get();
            if (since != 0) {
                out.add(now - since);
            }
            lastHolder.set(id);
            if (stop.get()) {
                lock.rollback();
                return;
            }
            releasedAt.set(System.nanoTime());
            if (listener == null) {
                lock.commit();
            } else {
                try (Statement s = lock.createStatement()) {
                    s.execute("NOTIFY distlock_bench; COMMIT");
                }
            }
            while (lastHolder.get() == id && !stop.get()) {
                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
            }
        }
    }

    private static List<Long> select1(PostgresServer pg, long nanos) throws SQLException {
        List<Long> out = new ArrayList<>();
        try (Connection c = pg.connect();
                PreparedStatement ps = c.prepareStatement("SELECT 1")) {
            long end = System.nanoTime() + nanos;
            while (System.nanoTime() < end) {
                long t = System.nanoTime();
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                }
                out.add(System.nanoTime() - t);
            }
        }
        return out;
    }

    /**
     * A {@code NOTIFY} committed on one connection (autocommit), then {@code SELECT 1} on another
     * connection that listens, repeated until the driver has read the notification there (the
     * server sends it as soon as the listening session is idle, so one {@code SELECT 1} almost
     * always suffices): from before the {@code NOTIFY} to the end of that {@code SELECT 1}, on one
     * thread. The notification is taken from the driver's query executor, which only hands over
     * what it read: the driver's own {@code getNotifications(timeout)} adds a 1 ms socket peek
     * after each read, which would be measured instead.
     */
    private static List<Long> notifyFloor(PostgresServer pg, long nanos) throws SQLException {
        List<Long> out = new ArrayList<>();
        try (Connection sender = pg.connect();
                Connection listener = pg.connect();
                PreparedStatement send = sender.prepareStatement("NOTIFY distlock_floor");
                Statement listen = listener.createStatement();
                PreparedStatement one = listener.prepareStatement("SELECT 1")) {
            listen.execute("LISTEN distlock_floor");
            QueryExecutor executor = listener.unwrap(BaseConnection.class).getQueryExecutor();
            long end = System.nanoTime() + nanos;
            while (System.nanoTime() < end) {
                long t = System.nanoTime();
                send.execute();
                int tries = 0;
                do {
                    try (ResultSet rs = one.executeQuery()) {
                        rs.next();
                    }
                } while (executor.getNotifications().length == 0 && ++tries < 1000);
                out.add(System.nanoTime() - t);
            }
        }
        return out;
    }
}
