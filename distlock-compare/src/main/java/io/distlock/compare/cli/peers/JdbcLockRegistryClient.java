package io.distlock.compare.cli.peers;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.distlock.compare.LockClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Peer: Spring Integration's {@code JdbcLockRegistry} over its {@code DefaultLockRepository} (the
 * {@code INT_LOCK} table, one short transaction per attempt, waiters poll every {@code
 * idleBetweenTries}, 100 ms by default; no fencing, no automatic renewal: the row's TTL is 60 s
 * unless renewed by the caller). One repository (its own client id), registry and two-connection
 * pool per client, as each application instance would have. Release must come from the acquiring
 * thread (the registry's locks are thread-bound), which the comparison does. Its table is {@code
 * <tablePrefix>LOCK} (Spring Integration's {@code INT_LOCK} under another prefix).
 */
public final class JdbcLockRegistryClient implements LockClient {
    /** The DDL Spring Integration ships per database ({@code mysql}, {@code postgresql}); only {@code INT_LOCK} is used. */
    /**
     * Why the held-locks curve stops at one lock for this peer: acquiring distinct new names from
     * several threads at once, its {@code tryLock} comes back empty (within the 1 s each attempt has)
     * while the others insert their rows.
     */
    public static final String DISTINCT_LOCKS_LIMIT = "its tryLock of a new name, from several threads at once,"
            + " comes back empty within 1 s while the other threads insert theirs; it is measured holding one lock";

    private static final String SCHEMA = "org/springframework/integration/jdbc/schema-%s.sql";

    private final HikariDataSource pool;
    private final DefaultLockRepository repository;
    private final JdbcLockRegistry registry;

    public JdbcLockRegistryClient(String jdbcUrl, String user, String password, String tablePrefix) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(1);
        config.setPoolName("distlock-compare-jdbclockregistry");
        this.pool = new HikariDataSource(config);
        try {
            this.repository = new DefaultLockRepository(pool);
            repository.setPrefix(tablePrefix);
            repository.setTransactionManager(new DataSourceTransactionManager(pool));
            repository.afterPropertiesSet();
            repository.afterSingletonsInstantiated();
            this.registry = new JdbcLockRegistry(repository);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    /**
     * Creates the table {@code <tablePrefix>LOCK} with the statement from Spring Integration's shipped
     * {@code schema-<database>.sql} ({@code mysql}, {@code postgresql}; its {@code INT_} prefix
     * replaced), unless it exists.
     *
     * @return the table's name
     */
    public static String createTable(Connection c, String tablePrefix, String database) throws SQLException {
        String table = tablePrefix + "LOCK";
        DatabaseMetaData meta = c.getMetaData();
        // PostgreSQL folds the unquoted name to lower case
        for (String name : new String[] {table, table.toLowerCase(Locale.ROOT)}) {
            try (ResultSet rs = meta.getTables(c.getCatalog(), null, name, new String[] {"TABLE"})) {
                if (rs.next()) {
                    return table;
                }
            }
        }
        try (Statement s = c.createStatement()) {
            s.execute(intLockDdl(database).replace("INT_LOCK", table));
        }
        return table;
    }

    static String intLockDdl(String database) {
        String resource = String.format(SCHEMA, database);
        String script;
        try (InputStream in = JdbcLockRegistryClient.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the class path (spring-integration-jdbc)");
            }
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + resource, e);
        }
        for (String statement : script.split(";")) {
            String s = statement.strip();
            // drop comment lines before the statement
            while (s.startsWith("--")) {
                int nl = s.indexOf('\n');
                s = nl < 0 ? "" : s.substring(nl + 1).strip();
            }
            if (s.toUpperCase(Locale.ROOT).matches("(?s)CREATE TABLE INT_LOCK\\s*\\(.*")) {
                return s;
            }
        }
        throw new IllegalStateException("no CREATE TABLE INT_LOCK statement in " + resource);
    }

    @Override
    public Optional<Hold> acquire(String name, Duration maxWait) throws InterruptedException {
        Lock lock = registry.obtain(name);
        boolean acquired = maxWait.isZero() ? lock.tryLock() : lock.tryLock(maxWait.toNanos(), TimeUnit.NANOSECONDS);
        return acquired ? Optional.of(lock::unlock) : Optional.empty();
    }

    @Override
    public void close() {
        try {
            repository.close();
        } finally {
            pool.close();
        }
    }
}
