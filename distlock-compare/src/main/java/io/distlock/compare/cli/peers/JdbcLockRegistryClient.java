package io.distlock.compare.cli.peers;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.distlock.compare.LockClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
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
 * thread (the registry's locks are thread-bound), which the comparison does.
 */
public final class JdbcLockRegistryClient implements LockClient {
    /** The DDL Spring Integration ships per database ({@code mysql}, {@code postgresql}); only {@code INT_LOCK} is used. */
    private static final String SCHEMA = "org/springframework/integration/jdbc/schema-%s.sql";

    private final HikariDataSource pool;
    private final DefaultLockRepository repository;
    private final JdbcLockRegistry registry;

    public JdbcLockRegistryClient(String jdbcUrl, String user, String password) {
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
     * Creates the {@code INT_LOCK} table with the statement from Spring Integration's shipped {@code
     * schema-<database>.sql} ({@code mysql}, {@code postgresql}), unless it exists.
     */
    public static void createTable(String jdbcUrl, String user, String password, String database) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl, user, password)) {
            DatabaseMetaData meta = c.getMetaData();
            // PostgreSQL folds the unquoted name to lower case
            for (String name : new String[] {"INT_LOCK", "int_lock"}) {
                try (ResultSet rs = meta.getTables(c.getCatalog(), null, name, new String[] {"TABLE"})) {
                    if (rs.next()) {
                        return;
                    }
                }
            }
            try (Statement s = c.createStatement()) {
                s.execute(intLockDdl(database));
            }
        }
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
