package io.distlock.testing.servers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL server (Debian's {@code postgresql} package, 15 or newer) with a fresh cluster
 * ({@code initdb}) on a free loopback port, a database {@value #DATABASE} owned by a login role
 * {@value #USER} with a SCRAM password. Test speed: {@code fsync=off} and {@code
 * full_page_writes=off} (a commit is written to the kernel, so a killed server keeps it; only a
 * machine crash loses it); durable mode keeps PostgreSQL's defaults. Ready when
 * {@code pg_isready} says the server accepts connections and the database and role exist.
 *
 * <pre>{@code
 * try (PostgresServer pg = PostgresServer.start();
 *         Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password())) {
 *     ...
 * }
 * }</pre>
 *
 * <p>Administration ({@link #executeAsSuperuser}) goes through the {@code psql} client over the
 * server's Unix socket, so the launcher needs no JDBC driver; {@link #connect()} needs {@code
 * org.postgresql:postgresql} on the class path (optional in lock-testing). PostgreSQL refuses to run
 * as root: when the test JVM runs as root, the server, {@code initdb} and {@code psql} run as the
 * {@code postgres} system user that the Debian package creates, and the server's directory is given
 * to it.
 *
 * <p>In docker mode ({@link ServerMode}) a server without TLS runs in a container of image {@code
 * distlock.image.postgresql} with host networking, as the image's user {@code postgres}; its
 * directory is mounted at the same path (data and Unix socket), so that administration goes through
 * the host's {@code psql} as for a local server. Kills, pauses and restarts (with or without its
 * data) act on the container.
 */
public final class PostgresServer extends DelegatingTestServer {
    /** The test database. */
    public static final String DATABASE = "distlock_test";
    /** The login role that owns {@link #DATABASE}. */
    public static final String USER = "distlock";

    private static final String PASSWORD = "distlock-test-pw";
    private static final String SUPERUSER = "postgres";
    private static final String POSTGRES_DRIVER_ARTIFACT = "org.postgresql:postgresql";

    private final Path dir;

    private PostgresServer(ServerProcess process) {
        this(process, process.dir());
    }

    private PostgresServer(TestServer delegate, Path dir) {
        super(delegate);
        this.dir = dir;
    }

    /** Starts a test-speed server. */
    public static PostgresServer start() {
        return builder().start();
    }

    /** A builder for a server with options (durability, TLS). */
    public static Builder builder() {
        return new Builder();
    }

    /** Options of a server; {@link #start()} is {@code builder().start()}. */
    public static final class Builder {
        private boolean durable;
        private boolean statementStatistics;
        private TestCertificates tls;

        private Builder() {}

        /** Keep PostgreSQL's durable defaults ({@code fsync=on}, {@code full_page_writes=on}). */
        public Builder durable(boolean durable) {
            this.durable = durable;
            return this;
        }

        /**
         * Offers TLS with {@code certs}' server certificate ({@code ssl=on}); clients verify it against
         * {@link TestCertificates#caCertificate()} ({@code sslmode=verify-full}). TLS is offered, not
         * required. Always a local process (also in docker mode).
         */
        public Builder tls(TestCertificates certs) {
            this.tls = certs;
            return this;
        }

        /**
         * Loads {@code pg_stat_statements} ({@code shared_preload_libraries}, with utility statements
         * such as {@code BEGIN} and {@code COMMIT} counted) and creates the extension in {@link
         * #DATABASE}: {@code SELECT sum(calls) FROM pg_stat_statements} then counts the statements
         * the server ran.
         */
        public Builder statementStatistics(boolean statementStatistics) {
            this.statementStatistics = statementStatistics;
            return this;
        }

        public PostgresServer start() {
            return PostgresServer.start(durable, statementStatistics, tls);
        }
    }

    private static PostgresServer start(boolean durable, boolean statementStatistics, TestCertificates tls) {
        boolean root = "root".equals(System.getProperty("user.name"));
        if (tls == null && ServerMode.useDocker()) {
            return startContainer(root, durable, statementStatistics);
        }
        Path bin = binDir();
        return new PostgresServer(ServerProcess.startWithRetry(() -> {
            Path dir = ServerDirs.create("postgresql");
            int port = Ports.free();
            return new ServerProcess(
                    "postgresql",
                    dir,
                    port,
                    s -> asServerUser(
                            root,
                            bin.resolve("postgres").toString(),
                            serverArguments(dir, port, durable, statementStatistics, tls)),
                    s -> isReady(root, dir, port),
                    s -> {
                        giveToServerUser(root, dir);
                        List<String> c =
                                asServerUser(root, bin.resolve("initdb").toString(), initdbArguments(dir));
                        Path log = dir.resolve("initdb.log");
                        if (run(c, dir, Duration.ofSeconds(60), log) != 0) {
                            throw new ServerStartException("initdb failed: " + SupervisedProcess.tail(log, 3000));
                        }
                        if (tls != null) {
                            Files.copy(tls.serverCertificate(), dir.resolve("server.crt"));
                            Files.copy(tls.serverKey(), dir.resolve("server.key"));
                            Files.setPosixFilePermissions(
                                    dir.resolve("server.key"), PosixFilePermissions.fromString("rw-------"));
                            giveToServerUser(root, dir);
                        }
                    },
                    s -> setUp(root, dir, port, statementStatistics),
                    Duration.ofSeconds(60),
                    Map.of());
        }));
    }

    /**
     * The server in a container (docker mode): its directory is mounted at the same path, opened to
     * the container's user, and set up from the host over the Unix socket in it, as a local one.
     */
    private static PostgresServer startContainer(boolean root, boolean durable, boolean statementStatistics) {
        Path dir = ServerDirs.create("postgresql");
        int port = Ports.free();
        return new PostgresServer(
                DockerServers.postgres(
                        dir,
                        port,
                        initdbArguments(dir),
                        serverArguments(dir, port, durable, statementStatistics, null),
                        (h, p) -> isReady(root, dir, port),
                        // the container's user owns what it creates in the directory; the host's psql
                        // reaches the socket it puts there
                        () -> Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx")),
                        () -> setUp(root, dir, port, statementStatistics)),
                dir);
    }

    private static List<String> serverArguments(
            Path dir, int port, boolean durable, boolean statementStatistics, TestCertificates tls) {
        List<String> c = new ArrayList<>(List.of(
                "-D",
                dir.resolve("data").toString(),
                "-p",
                Integer.toString(port),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "unix_socket_directories=" + dir,
                "-c",
                "max_connections=300",
                "-c",
                "shared_buffers=32MB",
                "-c",
                "log_min_messages=warning"));
        if (statementStatistics) {
            c.addAll(List.of(
                    "-c", "shared_preload_libraries=pg_stat_statements", "-c", "pg_stat_statements.track_utility=on"));
        }
        if (!durable) {
            // commits still reach the kernel (a killed server keeps them), never the disk
            c.addAll(List.of("-c", "fsync=off", "-c", "full_page_writes=off"));
        }
        if (tls != null) {
            c.addAll(List.of(
                    "-c",
                    "ssl=on",
                    "-c",
                    "ssl_cert_file=" + dir.resolve("server.crt"),
                    "-c",
                    "ssl_key_file=" + dir.resolve("server.key")));
        }
        return c;
    }

    private static List<String> initdbArguments(Path dir) {
        return List.of(
                "-D",
                dir.resolve("data").toString(),
                "-U",
                SUPERUSER,
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
                "--no-sync");
    }

    private static boolean isReady(boolean root, Path dir, int port) throws IOException, InterruptedException {
        List<String> c = asServerUser(
                root,
                binDir().resolve("pg_isready").toString(),
                List.of("-q", "-h", dir.toString(), "-p", Integer.toString(port), "-d", "postgres", "-U", SUPERUSER));
        return run(c, dir, Duration.ofSeconds(5)) == 0;
    }

    /** Creates the role, the database and the extension, those missing (also after a restart with its data). */
    private static void setUp(boolean root, Path dir, int port, boolean statementStatistics)
            throws IOException, InterruptedException {
        if (psqlIn(root, dir, port, "postgres", "SELECT 1 FROM pg_roles WHERE rolname = '" + USER + "'")
                .isEmpty()) {
            psqlIn(root, dir, port, "postgres", "CREATE ROLE " + USER + " LOGIN PASSWORD '" + PASSWORD + "'");
        }
        if (psqlIn(root, dir, port, "postgres", "SELECT 1 FROM pg_database WHERE datname = '" + DATABASE + "'")
                .isEmpty()) {
            psqlIn(root, dir, port, "postgres", "CREATE DATABASE " + DATABASE + " OWNER " + USER);
        }
        if (statementStatistics) {
            psqlIn(root, dir, port, DATABASE, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        }
    }

    /** {@code jdbc:postgresql://127.0.0.1:port/distlock_test}. */
    public String jdbcUrl() {
        return "jdbc:postgresql://" + address() + "/" + DATABASE;
    }

    /** {@code postgresql://distlock@127.0.0.1:port/distlock_test} (without the password). */
    public String uri() {
        return "postgresql://" + USER + "@" + address() + "/" + DATABASE;
    }

    /** The login role for {@link #jdbcUrl()}. */
    public String user() {
        return USER;
    }

    /** The role's password (a fixed test value). */
    public String password() {
        return PASSWORD;
    }

    /** The database name, {@value #DATABASE}. */
    public String database() {
        return DATABASE;
    }

    /**
     * Runs {@code statements} in {@link #DATABASE} as the superuser {@code postgres}, in order, each
     * in its own transaction, through {@code psql} over the server's Unix socket: for roles with fewer
     * privileges than {@link #user()}, grants, and inspection.
     *
     * @return what {@code psql} printed (unaligned, tuples only), for queries
     * @throws IllegalStateException if a statement fails (with psql's message)
     */
    public String executeAsSuperuser(String... statements) {
        try {
            return psqlIn("root".equals(System.getProperty("user.name")), dir, port(), DATABASE, statements);
        } catch (IOException e) {
            throw new IllegalStateException("psql failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running psql", e);
        }
    }

    /** A new connection as {@link #user()} (needs {@code org.postgresql:postgresql}). */
    public Connection connect() throws SQLException {
        try {
            DriverManager.getDriver(jdbcUrl());
        } catch (SQLException e) {
            throw new SQLException(OptionalDependency.message(
                    POSTGRES_DRIVER_ARTIFACT, "PostgresServer.connect (a driver for jdbc:postgresql: URLs)"));
        }
        return DriverManager.getConnection(jdbcUrl(), USER, PASSWORD);
    }

    private static String psqlIn(boolean root, Path dir, int port, String database, String... statements)
            throws IOException, InterruptedException {
        List<String> c = asServerUser(
                root,
                binDir().resolve("psql").toString(),
                List.of(
                        "-X",
                        "-q",
                        "-A",
                        "-t",
                        "-v",
                        "ON_ERROR_STOP=1",
                        "-h",
                        dir.toString(),
                        "-p",
                        Integer.toString(port),
                        "-U",
                        SUPERUSER,
                        "-d",
                        database));
        for (String sql : statements) {
            c.add("-c");
            c.add(sql);
        }
        Path out = Files.createTempFile(dir, "psql", ".out");
        try {
            int rc = run(c, dir, Duration.ofSeconds(30), out);
            String text = Files.readString(out, StandardCharsets.UTF_8).trim();
            if (rc != 0) {
                throw new IllegalStateException("psql exited with " + rc + ": " + text);
            }
            return text;
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** The directory of the newest installed PostgreSQL's server binaries. */
    private static Path binDir() {
        Path base = Paths.get("/usr/lib/postgresql");
        if (Files.isDirectory(base)) {
            try (Stream<Path> versions = Files.list(base)) {
                var newest = versions.filter(v -> Files.isExecutable(v.resolve("bin/postgres")))
                        .max(Comparator.comparingInt(PostgresServer::majorVersion));
                if (newest.isPresent()) {
                    return newest.get().resolve("bin");
                }
            } catch (IOException e) {
                // fall through to the PATH lookup
            }
        }
        return Binaries.require("postgresql", "postgres").getParent();
    }

    private static int majorVersion(Path versionDir) {
        try {
            return Integer.parseInt(versionDir.getFileName().toString());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The {@code psql} client of the newest installed PostgreSQL. */
    static Path psql() {
        return binDir().resolve("psql");
    }

    /** {@code command} as the {@code postgres} user when this JVM runs as root (same pid: setpriv execs). */
    static List<String> asServerUser(boolean root, String binary, List<String> arguments) {
        List<String> c = new ArrayList<>();
        if (root) {
            c.addAll(List.of(
                    Binaries.require("util-linux", "setpriv", "/usr/bin/setpriv")
                            .toString(),
                    "--reuid=" + SUPERUSER,
                    "--regid=" + SUPERUSER,
                    "--init-groups",
                    "--"));
        }
        c.add(binary);
        c.addAll(arguments);
        return c;
    }

    static void giveToServerUser(boolean root, Path dir) throws IOException, InterruptedException {
        if (root && run(List.of("chown", "-R", SUPERUSER + ":", dir.toString()), dir, Duration.ofSeconds(30)) != 0) {
            throw new ServerStartException("cannot give " + dir + " to the " + SUPERUSER + " user");
        }
    }

    private static int run(List<String> command, Path dir, Duration timeout) throws IOException, InterruptedException {
        return run(command, dir, timeout, null);
    }

    private static int run(List<String> command, Path dir, Duration timeout, Path output)
            throws IOException, InterruptedException {
        return run(command, dir, timeout, output, Map.of());
    }

    /**
     * Runs {@code command} in {@code dir} with {@code env} added to its environment, its output (and
     * errors) to {@code output} (discarded if null); its exit code, or -1 if it ran past {@code
     * timeout} (then it is killed).
     */
    static int run(List<String> command, Path dir, Duration timeout, Path output, Map<String, String> env)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        pb.redirectOutput(
                output == null ? ProcessBuilder.Redirect.DISCARD : ProcessBuilder.Redirect.to(output.toFile()));
        Process p = pb.start();
        p.getOutputStream().close();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }
}
