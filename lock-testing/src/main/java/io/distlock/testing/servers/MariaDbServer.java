package io.distlock.testing.servers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A MariaDB 10.11 server with a fresh data directory ({@code mariadb-install-db}) on a free loopback
 * port, a database {@value #DATABASE} and a TCP user {@value #USER} with a password, all privileges
 * on it. Test speed: {@code --innodb-flush-log-at-trx-commit=2 --skip-log-bin}; durable mode flushes
 * at every commit. Ready when {@code SELECT 1} over TCP answers (without a JDBC driver: see below).
 *
 * <pre>{@code
 * try (MariaDbServer db = MariaDbServer.start();
 *         Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password())) {
 *     ...
 * }
 * }</pre>
 *
 * Connect with MySQL Connector/J ({@code jdbc:mysql:}); TLS is off unless {@link Builder#tls}
 * offers it. {@code com.mysql:mysql-connector-j} is optional in lock-testing: with it on the class path
 * the server is ready when {@code SELECT 1} answers and the database and user are created over JDBC;
 * without it (a backend tested with another client) the server runs the same statements from an
 * {@code --init-file} and is ready when it greets a connection, and {@link #connect()} and {@link
 * #executeAsRoot} throw an {@link SQLException} naming the artifact.
 */
public final class MariaDbServer extends DelegatingTestServer {
    /** The test database. */
    public static final String DATABASE = "distlock_test";
    /** The TCP user, with all privileges on {@link #DATABASE}. */
    public static final String USER = "distlock";

    private static final String PASSWORD = "distlock-test-pw";
    private static final String MYSQL_DRIVER_ARTIFACT = "com.mysql:mysql-connector-j";
    private static final String INIT_FILE = "init.sql";
    /** Run as root once the server is up: over JDBC, or from the init file without a driver. */
    private static final List<String> SETUP = List.of(
            "CREATE DATABASE IF NOT EXISTS " + DATABASE,
            "CREATE USER IF NOT EXISTS '" + USER + "'@'%' IDENTIFIED BY '" + PASSWORD + "'",
            "GRANT ALL PRIVILEGES ON " + DATABASE + ".* TO '" + USER + "'@'%'",
            // connection killing (expireLease hooks) and server status for tests
            "GRANT PROCESS, CONNECTION ADMIN ON *.* TO '" + USER + "'@'%'");

    private MariaDbServer(ServerProcess delegate) {
        super(delegate);
    }

    /** Starts a test-speed server. */
    public static MariaDbServer start() {
        return start(false);
    }

    /** Starts a server, flushing at every commit if {@code durable}. */
    public static MariaDbServer start(boolean durable) {
        return start(durable, null);
    }

    /** A builder for a server with options (durability, TLS). */
    public static Builder builder() {
        return new Builder();
    }

    /** Options of a server; {@link #start()} is {@code builder().start()}. */
    public static final class Builder {
        private boolean durable;
        private TestCertificates tls;

        private Builder() {}

        /** Flush the redo log at every commit ({@code --innodb-flush-log-at-trx-commit=1}). */
        public Builder durable(boolean durable) {
            this.durable = durable;
            return this;
        }

        /**
         * Offers TLS with {@code certs}' server certificate ({@code --ssl-cert}, {@code --ssl-key},
         * {@code --ssl-ca}); clients verify it against {@link TestCertificates#trustStore()}. TLS is
         * offered, not required: require it per user ({@code CREATE USER ... REQUIRE SSL}).
         */
        public Builder tls(TestCertificates certs) {
            this.tls = certs;
            return this;
        }

        public MariaDbServer start() {
            return MariaDbServer.start(durable, tls);
        }
    }

    private static MariaDbServer start(boolean durable, TestCertificates tls) {
        boolean jdbc = hasMySqlDriver();
        Path mariadbd = Binaries.require("mariadb-server", "mariadbd", "/usr/sbin/mariadbd");
        Path installDb = Binaries.require("mariadb-server", "mariadb-install-db", "/usr/bin/mariadb-install-db");
        boolean root = "root".equals(System.getProperty("user.name"));
        return new MariaDbServer(ServerProcess.startWithRetry(() -> new ServerProcess(
                "mariadb",
                ServerDirs.create("mariadb"),
                Ports.free(),
                s -> {
                    List<String> c = new ArrayList<>(List.of(
                            mariadbd.toString(),
                            "--no-defaults",
                            "--datadir=" + s.dir().resolve("data"),
                            "--socket=" + s.dir().resolve("mariadbd.sock"),
                            "--pid-file=" + s.dir().resolve("mariadbd.pid"),
                            // its own temp dir: a shared /tmp let another process remove its temp tables
                            "--tmpdir=" + s.dir(),
                            "--port=" + s.port(),
                            "--bind-address=127.0.0.1",
                            "--skip-name-resolve",
                            "--innodb-flush-log-at-trx-commit=" + (durable ? "1" : "2"),
                            "--skip-log-bin",
                            "--innodb-buffer-pool-size=64M",
                            "--performance-schema=OFF",
                            "--max-connections=300"));
                    if (root) {
                        c.add("--user=root");
                    }
                    if (tls != null) {
                        c.add("--ssl-cert=" + tls.serverCertificate());
                        c.add("--ssl-key=" + tls.serverKey());
                        c.add("--ssl-ca=" + tls.caCertificate());
                    }
                    if (!jdbc) {
                        c.add("--init-file=" + s.dir().resolve(INIT_FILE));
                    }
                    return c;
                },
                s -> {
                    if (!jdbc) {
                        return Probes.mysqlGreets(s.host(), s.port());
                    }
                    try (Connection c = DriverManager.getConnection(rootUrl(s.port()), "root", "");
                            Statement st = c.createStatement()) {
                        return st.execute("SELECT 1");
                    }
                },
                s -> {
                    List<String> c = new ArrayList<>(List.of(
                            installDb.toString(),
                            "--no-defaults",
                            "--datadir=" + s.dir().resolve("data"),
                            "--auth-root-authentication-method=normal",
                            "--tmpdir=" + s.dir(),
                            "--skip-test-db"));
                    if (root) {
                        c.add("--user=root");
                    }
                    Process p = new ProcessBuilder(c)
                            .directory(s.dir().toFile())
                            .redirectErrorStream(true)
                            .redirectOutput(s.dir().resolve("install-db.log").toFile())
                            .start();
                    if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
                        p.destroyForcibly();
                        throw new ServerStartException("mariadb-install-db failed: "
                                + SupervisedProcess.tail(s.dir().resolve("install-db.log"), 3000));
                    }
                    if (!jdbc) {
                        Files.writeString(s.dir().resolve(INIT_FILE), String.join(";\n", SETUP) + ";\n");
                    }
                },
                jdbc
                        ? s -> {
                            try (Connection c = DriverManager.getConnection(rootUrl(s.port()), "root", "");
                                    Statement st = c.createStatement()) {
                                for (String sql : SETUP) {
                                    st.execute(sql);
                                }
                            }
                        }
                        : null,
                Duration.ofSeconds(60),
                Map.of())));
    }

    /** Whether a JDBC driver accepts {@code jdbc:mysql:} URLs (MySQL Connector/J, optional in lock-testing). */
    private static boolean hasMySqlDriver() {
        try {
            DriverManager.getDriver(rootUrl(3306));
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    private static Connection connect(String url, String user, String password) throws SQLException {
        if (!hasMySqlDriver()) {
            throw new SQLException(OptionalDependency.message(
                    MYSQL_DRIVER_ARTIFACT, "MariaDbServer's JDBC access (a driver for jdbc:mysql: URLs)"));
        }
        return DriverManager.getConnection(url, user, password);
    }

    private static String rootUrl(int port) {
        return "jdbc:mysql://127.0.0.1:" + port + "/?sslMode=DISABLED&connectTimeout=2000&socketTimeout=10000";
    }

    /** {@code jdbc:mysql://127.0.0.1:port/distlock_test?sslMode=DISABLED&allowPublicKeyRetrieval=true}. */
    public String jdbcUrl() {
        return "jdbc:mysql://" + address() + "/" + DATABASE + "?sslMode=DISABLED&allowPublicKeyRetrieval=true";
    }

    /** {@code mysql://distlock@127.0.0.1:port/distlock_test}, the lock-mysql-skiplocked URI (without password). */
    public String uri() {
        return "mysql://" + USER + "@" + address() + "/" + DATABASE;
    }

    /** The user name for {@link #jdbcUrl()}. */
    public String user() {
        return USER;
    }

    /** The user's password (a fixed test value). */
    public String password() {
        return PASSWORD;
    }

    /** The database name, {@value #DATABASE}. */
    public String database() {
        return DATABASE;
    }

    /**
     * Runs {@code statements} as the server's {@code root} user (over TCP, without TLS), in order:
     * for DDL and {@code CREATE USER} / {@code GRANT} of users with fewer privileges than {@link
     * #user()}.
     */
    public void executeAsRoot(String... statements) throws SQLException {
        try (Connection c = connect(rootUrl(port()), "root", "");
                Statement st = c.createStatement()) {
            for (String sql : statements) {
                st.execute(sql);
            }
        }
    }

    /** A new connection as {@link #user()}. */
    public Connection connect() throws SQLException {
        return connect(jdbcUrl(), USER, PASSWORD);
    }
}
