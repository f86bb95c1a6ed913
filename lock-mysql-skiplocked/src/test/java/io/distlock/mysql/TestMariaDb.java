package io.distlock.mysql;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Test-only launcher of a local MariaDB (mariadbd from the PATH or /usr/sbin) on a free loopback
 * port in a temporary directory, with a database {@code distlock} and a TCP user {@code distlock}.
 * To be replaced by {@code io.distlock.tck.servers.MariaDbServer} once it lands. Fails (never skips)
 * if the server cannot start.
 */
final class TestMariaDb implements AutoCloseable {
    static final String USER = "distlock";
    static final String PASSWORD = "s3cr3t-Pa55";
    static final String DATABASE = "distlock";

    private final Path dir;
    private final int port;
    private Process process;

    private TestMariaDb(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    static TestMariaDb start() {
        try {
            Path dir = Files.createTempDirectory("distlock-mariadb-");
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            TestMariaDb db = new TestMariaDb(dir, port);
            db.install();
            db.launch();
            try (Connection c = db.rootConnection();
                    Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE " + DATABASE);
                s.execute("CREATE USER '" + USER + "'@'127.0.0.1' IDENTIFIED BY '" + PASSWORD + "'");
                s.execute("CREATE USER '" + USER + "'@'localhost' IDENTIFIED BY '" + PASSWORD + "'");
                s.execute("GRANT ALL ON " + DATABASE + ".* TO '" + USER + "'@'127.0.0.1'");
                s.execute("GRANT ALL ON " + DATABASE + ".* TO '" + USER + "'@'localhost'");
            }
            return db;
        } catch (IOException | SQLException e) {
            throw new IllegalStateException("cannot start MariaDB: " + e, e);
        }
    }

    private static String binary(String name, String fallback) {
        for (String p : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(p, name))) {
                return Path.of(p, name).toString();
            }
        }
        return fallback;
    }

    private void install() throws IOException {
        Path log = dir.resolve("install.log");
        Process p = new ProcessBuilder(
                        binary("mariadb-install-db", "/usr/bin/mariadb-install-db"),
                        "--no-defaults",
                        "--auth-root-authentication-method=normal",
                        "--datadir=" + dir.resolve("data"))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException("mariadb-install-db failed: " + Files.readString(log));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private void launch() throws IOException {
        process = new ProcessBuilder(
                        binary("mariadbd", "/usr/sbin/mariadbd"),
                        "--no-defaults",
                        "--datadir=" + dir.resolve("data"),
                        "--socket=" + dir.resolve("sock"),
                        "--port=" + port,
                        "--bind-address=127.0.0.1",
                        "--user=root",
                        "--skip-log-bin",
                        "--innodb-flush-log-at-trx-commit=2",
                        "--innodb-buffer-pool-size=32M",
                        "--max-connections=300")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        dir.resolve("server.log").toFile()))
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("mariadbd exited: " + Files.readString(dir.resolve("server.log")));
            }
            try (Connection c = rootConnection();
                    Statement s = c.createStatement()) {
                s.execute("SELECT 1");
                return;
            } catch (SQLException e) {
                last = e;
            }
            try {
                process.waitFor(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
        throw new IOException("mariadbd not ready within 60s", last);
    }

    int port() {
        return port;
    }

    String jdbcUrl() {
        return "jdbc:mysql://127.0.0.1:" + port + "/" + DATABASE + "?sslMode=DISABLED&allowPublicKeyRetrieval=true";
    }

    Connection rootConnection() throws SQLException {
        return DriverManager.getConnection(
                "jdbc:mysql://127.0.0.1:" + port + "/?sslMode=DISABLED&connectTimeout=2000", "root", "");
    }

    Connection userConnection() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), USER, PASSWORD);
    }

    /** Stops the server cleanly (SIGTERM), keeping its data. */
    void stop() {
        if (process != null && process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Starts it again on the same port with the same data. */
    void restart() {
        stop();
        try {
            launch();
        } catch (IOException e) {
            throw new IllegalStateException("cannot restart MariaDB: " + e, e);
        }
    }

    @Override
    public void close() {
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try (Stream<Path> files = Files.walk(dir)) {
            List<Path> all = files.sorted(Comparator.reverseOrder()).toList();
            for (Path p : all) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // best effort
        }
    }
}
