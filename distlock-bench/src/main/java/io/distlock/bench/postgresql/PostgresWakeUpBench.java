package io.distlock.bench.postgresql;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.postgresql.PostgresLockOptions;
import io.distlock.postgresql.PostgresLockProvider;
import io.distlock.postgresql.internal.PostgresDialect;
import io.distlock.testing.servers.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.postgresql.PGConnection;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.QueryExecutor;

/**
 * How a waiter of lock-postgresql should learn that the lock is free, and where a hand-off's time
 * goes, measured on a PostgreSQL it starts itself: the hand-off time from the holder's release
 * (taken just before it sends its {@code COMMIT}) to the moment the next holder has the lock, with 1
 * and with 50 waiters (each waiter a client of its own, all on one lock; the holder keeps the lock
 * {@code --hold-ms} so that the others are really waiting), in rounds that alternate the variants.
 *
 * <ul>
 *   <li>{@code rowlock}: plain JDBC; each waiter blocks on the row lock ({@code SELECT … FOR UPDATE}
 *       bounded by {@code lock_timeout}, no token); the holder's {@code COMMIT} grants the row to one
 *       of them inside the server.
 *   <li>{@code rowlock_token}: the same with the lock's own wait statement ({@link
 *       PostgresDialect#waitSql()}), which draws the fencing token once the row lock is granted: the
 *       hand-off of the lock's protocol with no client code around it.
 *   <li>{@code rowlock_token_apart}: {@code rowlock}, then the token statement ({@link
 *       PostgresDialect#tokenSql()}) on a connection of its own in autocommit: a token committed
 *       apart from the lock's transaction, one round trip after the grant.
 *   <li>{@code advisory_token}: as {@code rowlock_token}, but the waiters queue on a
 *       transaction-scoped advisory lock of the name's hash, taken in the wait statement before the
 *       row lock, so that at most one waiter waits on the row itself (PostgreSQL's row-lock waiters
 *       otherwise queue on the row's tuple lock, and each grant wakes the next in line too).
 *   <li>{@code advisory}, {@code advisory_seq}, {@code advisory_only_token}: no row at all; each
 *       waiter blocks on the transaction-scoped advisory lock of the name's hash (the lock manager
 *       grants it to one waiter on release and wakes that one only), then draws nothing, a plain
 *       {@code nextval}, or the lock's token (floored at the clock with {@code setval}): where a
 *       hand-off's time goes when the lock is not a row lock.
 *   <li>{@code notify_token}: plain JDBC; the holder releases with {@code NOTIFY <channel>; COMMIT}
 *       (one round trip); each waiter listens on a connection of its own and, woken, claims with the
 *       lock's {@code SKIP LOCKED} statement (which draws the token); a waiter that finds the row
 *       taken waits for the next notification. Every waiter wakes on every release.
 *   <li>{@code provider}: lock-postgresql itself, one {@link PostgresLockProvider} per client.
 * </ul>
 *
 * Also measured in the same rounds, one after another on one thread: {@code select1} (a {@code
 * SELECT 1} round trip), {@code token} (the token statement), {@code notify_floor} (a {@code NOTIFY}
 * committed on one connection until another connection's listener has it, plus one {@code SELECT 1}
 * there: the hand-off floor of {@code ./distlock compare}) and {@code notify_token_floor} (the same
 * with the token statement in place of the {@code SELECT 1}), each after {@code --hold-ms} idle.
 *
 * <p>Arguments: {@code [--rounds N]} (default 5), {@code [--seconds S]} per variant and round
 * (default 2), {@code [--hold-ms MS]} (default 2), {@code [--waiters 1,50]}, {@code [--variants
 * rowlock,rowlock_token,rowlock_token_apart,advisory_token,notify_token,provider]}; also {@code
 * advisory,advisory_seq,advisory_only_token}, {@code [--out FILE]} (default {@code
 * target/benchmarks/postgres-wakeup.json}). Run with {@code ./distlock bench PostgresWakeUpBench
 * [args]}.
 */
public final class PostgresWakeUpBench {
    private static final PostgresDialect SQL = PostgresDialect.of(PostgresLockOptions.defaults());
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String LOCK = "l";
    private static final String CHANNEL = "distlock_bench";
    /**
     * The {@code advisory_token} variant's wait: the lock's wait statement, but waiters queue on a
     * transaction-scoped advisory lock of the name's 64-bit hash (PostgreSQL's lock manager grants it
     * to one waiter on release), and only the one holding it waits on the row lock.
     */
    private static final String ADVISORY_WAIT_SQL = replaceOnce(
            SQL.waitSql(),
            "set_config('lock_timeout', ?, true),",
            "set_config('lock_timeout', ?, true), pg_advisory_xact_lock(hashtextextended(name, 0)) IS NULL,");
    /**
     * The {@code advisory} variants' wait: a transaction-scoped advisory lock of the name's hash
     * instead of the row, with nothing after it ({@code advisory}), with a plain {@code nextval}
     * ({@code advisory_seq}) or with the lock's token ({@code advisory_only_token}).
     */
    private static final String ADVISORY_ONLY_SQL = "SELECT set_config('lock_timeout', '1000', true),"
            + " pg_advisory_xact_lock(hashtextextended(?, 0)) IS NULL AS g";

    private static final String ADVISORY_SEQ_SQL = "WITH l AS MATERIALIZED (" + ADVISORY_ONLY_SQL + ")"
            + " SELECT nextval('" + PostgresLockOptions.DEFAULT_TABLE + "_token') FROM l";

    private static final String ADVISORY_ONLY_TOKEN_SQL = "WITH l AS MATERIALIZED (" + ADVISORY_ONLY_SQL + "), "
            + replaceOnce(SQL.tokenSql().substring("WITH ".length()), " AS c)", " AS c FROM l)");

    /** The {@code rowlock} variants' wait without a token: the row lock alone. */
    private static final String PLAIN_WAIT_SQL = "SELECT set_config('lock_timeout', '1000', true),"
            + " set_config('idle_in_transaction_session_timeout', '30000', true)"
            + " FROM " + PostgresLockOptions.DEFAULT_TABLE + " WHERE name = ? FOR UPDATE";

    private PostgresWakeUpBench() {}

    /** {@code sql} with {@code part} replaced, which must occur in it exactly once. */
    private static String replaceOnce(String sql, String part, String with) {
        int at = sql.indexOf(part);
        if (at < 0 || sql.indexOf(part, at + 1) >= 0) {
            throw new IllegalStateException("expected '" + part + "' once in the lock's statement: " + sql);
        }
        return sql.substring(0, at) + with + sql.substring(at + part.length());
    }

    /** One client of a hand-off variant. */
    private interface Client extends AutoCloseable {
        /** Blocks until this client holds the lock; false if it gave up (stopping). */
        boolean acquire(AtomicBoolean stop) throws Exception;

        void release() throws Exception;

        @Override
        void close() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int rounds = 5;
        double seconds = 2;
        long holdNanos = TimeUnit.MILLISECONDS.toNanos(2);
        List<Integer> waiterCounts = List.of(1, 50);
        List<String> variants = List.of(
                "rowlock", "rowlock_token", "rowlock_token_apart", "advisory_token", "notify_token", "provider");
        Path file = Path.of("target", "benchmarks", "postgres-wakeup.json");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--hold-ms" -> holdNanos = (long) (Double.parseDouble(args[++i]) * 1e6);
                case "--waiters" ->
                    waiterCounts = List.of(args[++i].split(",")).stream()
                            .map(Integer::parseInt)
                            .toList();
                case "--variants" -> variants = List.of(args[++i].split(","));
                case "--out" -> file = Path.of(args[++i]);
                default ->
                    throw new IllegalArgumentException("unknown argument " + args[i] + " (usage: [--rounds N]"
                            + " [--seconds S] [--hold-ms MS] [--waiters 1,50] [--variants a,b] [--out FILE])");
            }
        }
        Map<String, List<Long>> samples = new LinkedHashMap<>();
        try (PostgresServer pg = PostgresServer.start()) {
            try (Connection c = pg.connect();
                    Statement s = c.createStatement()) {
                for (String ddl : SQL.ddl()) {
                    s.execute(ddl);
                }
                s.execute(SQL.insertSql().replace("?", "'" + LOCK + "'"));
            }
            long nanos = (long) (seconds * 1e9);
            for (int r = 0; r < rounds; r++) {
                for (int waiters : waiterCounts) {
                    for (String variant : variants) {
                        add(samples, variant + "_" + waiters, handOffs(pg, variant, waiters, holdNanos, nanos));
                    }
                }
                floors(pg, holdNanos, nanos, samples);
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

    private static Client client(PostgresServer pg, String variant) throws SQLException {
        return switch (variant) {
            case "rowlock" -> new RowLockClient(pg, PLAIN_WAIT_SQL, false);
            case "rowlock_token" -> new RowLockClient(pg, SQL.waitSql(), false);
            case "rowlock_token_apart" -> new RowLockClient(pg, PLAIN_WAIT_SQL, true);
            case "advisory_token" -> new RowLockClient(pg, ADVISORY_WAIT_SQL, false);
            case "advisory" -> new RowLockClient(pg, ADVISORY_ONLY_SQL, false);
            case "advisory_seq" -> new RowLockClient(pg, ADVISORY_SEQ_SQL, false);
            case "advisory_only_token" -> new RowLockClient(pg, ADVISORY_ONLY_TOKEN_SQL, false);
            case "notify_token" -> new NotifyClient(pg);
            case "provider" -> new ProviderClient(pg);
            default -> throw new IllegalArgumentException("unknown variant " + variant);
        };
    }

    /**
     * {@code waiters + 1} clients take turns on one lock for {@code nanos}: whoever gets it records
     * the time since the last release, holds it {@code holdNanos}, notes the time and releases, then
     * waits until another client has it before it competes again, so that every sample is a hand-off
     * to a client that was waiting.
     */
    private static List<Long> handOffs(PostgresServer pg, String variant, int waiters, long holdNanos, long nanos)
            throws Exception {
        int clients = waiters + 1;
        AtomicLong releasedAt = new AtomicLong();
        AtomicInteger lastHolder = new AtomicInteger(-1);
        AtomicInteger handOffs = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        List<Long> out = Collections.synchronizedList(new ArrayList<>());
        List<Client> open = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(clients);
        List<Thread> threads = new ArrayList<>();
        try {
            for (int i = 0; i < clients; i++) {
                Client c = client(pg, variant);
                open.add(c);
                int id = i;
                Thread t = new Thread(
                        () -> {
                            try {
                                while (!stop.get()) {
                                    if (!c.acquire(stop)) {
                                        continue;
                                    }
                                    long now = System.nanoTime();
                                    long since = releasedAt.get();
                                    // the first hand-offs, while every client queues for the first time, untimed
                                    if (since != 0 && handOffs.incrementAndGet() > clients) {
                                        out.add(now - since);
                                    }
                                    lastHolder.set(id);
                                    if (!stop.get()) {
                                        LockSupport.parkNanos(holdNanos);
                                    }
                                    releasedAt.set(System.nanoTime());
                                    c.release();
                                    while (lastHolder.get() == id && !stop.get()) {
                                        LockSupport.parkNanos(100_000);
                                    }
                                }
                            } catch (Exception e) {
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
            // wake every notification waiter (a row-lock waiter ends at its lock_timeout anyway)
            try (Connection c = pg.connect();
                    Statement s = c.createStatement()) {
                s.execute("NOTIFY " + CHANNEL);
            }
            done.await(10, TimeUnit.SECONDS);
        } finally {
            for (Client c : open) {
                try {
                    c.close();
                } catch (Exception ignored) {
                    // closing
                }
            }
        }
        synchronized (out) {
            return new ArrayList<>(out);
        }
    }

    /** The token statement on {@code c} (autocommit). */
    private static long token(PreparedStatement tokenStatement) throws SQLException {
        try (ResultSet rs = tokenStatement.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * A waiter blocked on the row lock with {@code waitSql}; with {@code token}, the token statement
     * after the grant.
     */
    private static final class RowLockClient implements Client {
        private final Connection lock;
        private final Connection tokens;
        private final PreparedStatement wait;
        private final PreparedStatement token;

        RowLockClient(PostgresServer pg, String waitSql, boolean token) throws SQLException {
            lock = pg.connect();
            lock.setAutoCommit(false);
            wait = lock.prepareStatement(waitSql);
            // the lock's own wait statement (and the variant built on it) takes the dialect's
            // parameters; every other variant binds the name alone
            if (waitSql.equals(SQL.waitSql()) || waitSql.equals(ADVISORY_WAIT_SQL)) {
                SQL.bindWait(wait, LOCK, LEASE, 1000);
            } else {
                wait.setString(1, LOCK);
            }
            tokens = token ? pg.connect() : null;
            this.token = token ? tokens.prepareStatement(SQL.tokenSql()) : null;
        }

        @Override
        public boolean acquire(AtomicBoolean stop) throws SQLException {
            try (ResultSet rs = wait.executeQuery()) {
                if (!rs.next()) {
                    lock.rollback();
                    return false;
                }
            } catch (SQLException e) {
                if (!SQL.isWaitEnded(e)) {
                    throw e;
                }
                lock.rollback();
                return false;
            }
            if (token != null) {
                token(token);
            }
            return true;
        }

        @Override
        public void release() throws SQLException {
            lock.commit();
        }

        @Override
        public void close() throws SQLException {
            lock.close();
            if (tokens != null) {
                tokens.close();
            }
        }
    }

    /**
     * A waiter that listens for the release's {@code NOTIFY}, then claims with {@code SKIP LOCKED}
     * (the claim draws the token).
     */
    private static final class NotifyClient implements Client {
        private final Connection lock;
        private final Connection listener;
        private final PreparedStatement claim;

        NotifyClient(PostgresServer pg) throws SQLException {
            lock = pg.connect();
            lock.setAutoCommit(false);
            claim = lock.prepareStatement(SQL.claimSql());
            SQL.bindClaim(claim, LOCK, LEASE);
            listener = pg.connect();
            try (Statement s = listener.createStatement()) {
                s.execute("LISTEN " + CHANNEL);
            }
        }

        @Override
        public boolean acquire(AtomicBoolean stop) throws SQLException {
            while (!stop.get()) {
                boolean got;
                try (ResultSet rs = claim.executeQuery()) {
                    got = rs.next();
                }
                if (got) {
                    return true;
                }
                lock.rollback();
                listener.unwrap(PGConnection.class).getNotifications(1000);
            }
            return false;
        }

        @Override
        public void release() throws SQLException {
            try (Statement s = lock.createStatement()) {
                s.execute("NOTIFY " + CHANNEL + "; COMMIT");
            }
        }

        @Override
        public void close() throws SQLException {
            lock.close();
            listener.close();
        }
    }

    /** lock-postgresql, a provider of its own per client. */
    private static final class ProviderClient implements Client {
        private final PostgresLockProvider provider;
        private Lease lease;

        ProviderClient(PostgresServer pg) {
            provider = PostgresLockProvider.builder()
                    .jdbcUrl(pg.jdbcUrl())
                    .options(PostgresLockOptions.builder()
                            .credentials(Credentials.of(pg.user(), pg.password()))
                            .poolSize(3)
                            .build())
                    .leaseTime(Duration.ofSeconds(10))
                    .build();
        }

        @Override
        public boolean acquire(AtomicBoolean stop) throws InterruptedException {
            lease = provider.lock(LOCK).tryAcquire(Duration.ofSeconds(1)).orElse(null);
            return lease != null;
        }

        @Override
        public void release() {
            lease.release();
        }

        @Override
        public void close() {
            provider.close();
        }
    }

    /**
     * The floors, alternately, each after {@code holdNanos} idle: {@code select1}, {@code token},
     * {@code notify_floor} and {@code notify_token_floor} (a {@code NOTIFY} committed on one
     * connection (autocommit), then {@code SELECT 1} or the token statement on another connection
     * that listens, repeated until the driver has read the notification there: the server sends it as
     * soon as the listening session is idle, so one almost always suffices), on one thread. The
     * notification is taken from the driver's query executor, which only hands over what it read:
     * the driver's own {@code getNotifications(timeout)} adds a 1 ms socket peek after each read.
     */
    private static void floors(PostgresServer pg, long holdNanos, long nanos, Map<String, List<Long>> samples)
            throws SQLException {
        try (Connection sender = pg.connect();
                Connection listener = pg.connect();
                Connection plain = pg.connect();
                Connection tokens = pg.connect();
                PreparedStatement send = sender.prepareStatement("NOTIFY distlock_floor");
                Statement listen = listener.createStatement();
                PreparedStatement one = listener.prepareStatement("SELECT 1");
                PreparedStatement listenerToken = listener.prepareStatement(SQL.tokenSql());
                PreparedStatement plainOne = plain.prepareStatement("SELECT 1");
                PreparedStatement token = tokens.prepareStatement(SQL.tokenSql())) {
            listen.execute("LISTEN distlock_floor");
            QueryExecutor executor = listener.unwrap(BaseConnection.class).getQueryExecutor();
            long end = System.nanoTime() + nanos;
            while (System.nanoTime() < end) {
                LockSupport.parkNanos(holdNanos);
                long t = System.nanoTime();
                try (ResultSet rs = plainOne.executeQuery()) {
                    rs.next();
                }
                add(samples, "select1", List.of(System.nanoTime() - t));
                LockSupport.parkNanos(holdNanos);
                t = System.nanoTime();
                token(token);
                add(samples, "token", List.of(System.nanoTime() - t));
                for (PreparedStatement after : List.of(one, listenerToken)) {
                    executor.getNotifications(); // drop anything left over
                    LockSupport.parkNanos(holdNanos);
                    t = System.nanoTime();
                    send.execute();
                    int tries = 0;
                    do {
                        try (ResultSet rs = after.executeQuery()) {
                            rs.next();
                        }
                    } while (executor.getNotifications().length == 0 && ++tries < 1000);
                    add(samples, after == one ? "notify_floor" : "notify_token_floor", List.of(System.nanoTime() - t));
                }
            }
        }
    }
}
