package io.distlock.testing.servers;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A PgBouncer (Debian's {@code pgbouncer} package) on a free loopback port in front of a {@link
 * PostgresServer}, serving its database {@value PostgresServer#DATABASE} under the same name, in
 * one pool mode ({@link PoolMode#TRANSACTION} unless told otherwise). Clients log in with SCRAM as
 * the server's owner role or as the roles added with {@link Builder#user}; PgBouncer logs in to the
 * server with the same name and password. The owner role is also PgBouncer's administrator, which
 * {@link #clientConnections(String)} uses.
 *
 * <pre>{@code
 * try (PostgresServer pg = PostgresServer.start();
 *         PgBouncer bouncer = PgBouncer.builder(pg).start()) {
 *     DriverManager.getConnection(bouncer.jdbcUrl(), pg.user(), pg.password());
 * }
 * }</pre>
 *
 * <p>PgBouncer refuses to run as root: when the test JVM runs as root it runs as the {@code
 * postgres} system user, as the server does. {@link #kill()}, {@link #pause()} and {@link
 * #restart(boolean)} act on PgBouncer, not on the server behind it.
 */
public final class PgBouncer extends DelegatingTestServer {
    /** How PgBouncer shares its server connections among its clients. */
    public enum PoolMode {
        /** A server connection per client connection, for as long as the client is connected. */
        SESSION,
        /** A server connection per transaction: between transactions a client holds none. */
        TRANSACTION,
        /** A server connection per statement: transactions of several statements are refused. */
        STATEMENT
    }

    private static final String ADMIN_DATABASE = "pgbouncer";

    private final PostgresServer server;
    /** PgBouncer's directory (configuration, user list, pid file). */
    private final Path dir;

    private PgBouncer(ServerProcess process, PostgresServer server) {
        super(process);
        this.server = server;
        this.dir = process.dir();
    }

    /** A builder for a PgBouncer in front of {@code server}. */
    public static Builder builder(PostgresServer server) {
        return new Builder(server);
    }

    /** Options of a PgBouncer. */
    public static final class Builder {
        private final PostgresServer server;
        private final Map<String, String> users = new LinkedHashMap<>();
        private PoolMode poolMode = PoolMode.TRANSACTION;
        private int poolSize = 100;
        private Duration queryWaitTimeout = Duration.ofSeconds(5);

        private Builder(PostgresServer server) {
            this.server = server;
            users.put(server.user(), server.password());
        }

        /** Also lets {@code role} log in with {@code password} (the role's password on the server). */
        public Builder user(String role, String password) {
            if (role.isEmpty() || !role.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new IllegalArgumentException("role must be a plain SQL identifier, got '" + role + "'");
            }
            if (password.indexOf('"') >= 0) {
                throw new IllegalArgumentException("password must not contain '\"'");
            }
            users.put(role, password);
            return this;
        }

        /** The pool mode ({@link PoolMode#TRANSACTION} by default). */
        public Builder poolMode(PoolMode poolMode) {
            this.poolMode = poolMode;
            return this;
        }

        /** Server connections per user and database ({@code default_pool_size}, 100 by default). */
        public Builder poolSize(int poolSize) {
            if (poolSize < 1) {
                throw new IllegalArgumentException("poolSize must be at least 1, got " + poolSize);
            }
            this.poolSize = poolSize;
            return this;
        }

        /**
         * How long a client's query may wait for a server connection before PgBouncer ends the
         * client's connection ({@code query_wait_timeout}, 5 s by default; PgBouncer's own default is
         * 120 s).
         */
        public Builder queryWaitTimeout(Duration timeout) {
            if (timeout.toSeconds() < 1) {
                throw new IllegalArgumentException("queryWaitTimeout must be at least 1 s, got " + timeout);
            }
            this.queryWaitTimeout = timeout;
            return this;
        }

        public PgBouncer start() {
            return PgBouncer.start(this);
        }
    }

    private static PgBouncer start(Builder b) {
        boolean root = "root".equals(System.getProperty("user.name"));
        Path binary = Binaries.require("pgbouncer", "pgbouncer", "/usr/sbin/pgbouncer");
        Map<String, String> users = Map.copyOf(b.users);
        return new PgBouncer(
                ServerProcess.startWithRetry(() -> {
                    Path dir = ServerDirs.create("pgbouncer");
                    int port = Ports.free();
                    return new ServerProcess(
                            "pgbouncer",
                            dir,
                            port,
                            s -> PostgresServer.asServerUser(
                                    root,
                                    binary.toString(),
                                    List.of(dir.resolve("pgbouncer.ini").toString())),
                            s -> accepts(port),
                            s -> {
                                writeConfig(dir, port, b, users);
                                PostgresServer.giveToServerUser(root, dir);
                            },
                            null,
                            Duration.ofSeconds(30),
                            Map.of());
                }),
                b.server);
    }

    private static void writeConfig(Path dir, int port, Builder b, Map<String, String> users) throws IOException {
        String ini = String.join(
                "\n",
                "[databases]",
                PostgresServer.DATABASE + " = host=" + b.server.host() + " port=" + b.server.port() + " dbname="
                        + PostgresServer.DATABASE,
                "",
                "[pgbouncer]",
                "listen_addr = " + ServerProcess.HOST,
                "listen_port = " + port,
                "unix_socket_dir =",
                "auth_type = scram-sha-256",
                "auth_file = " + dir.resolve("userlist.txt"),
                "admin_users = " + b.server.user(),
                "pool_mode = " + b.poolMode.name().toLowerCase(Locale.ROOT),
                "default_pool_size = " + b.poolSize,
                "max_client_conn = 1000",
                "query_wait_timeout = " + b.queryWaitTimeout.toSeconds(),
                // after a failed server login PgBouncer waits this long before it tries again (15 s by
                // default): a restarted server would stay unreachable through it for that long
                "server_login_retry = 1",
                // the PostgreSQL JDBC driver sends extra_float_digits at login; PgBouncer tracks only a
                // few parameters and refuses others unless told to ignore them
                "ignore_startup_parameters = extra_float_digits",
                "pidfile = " + dir.resolve("pgbouncer.pid"),
                "");
        Files.writeString(dir.resolve("pgbouncer.ini"), ini, StandardCharsets.UTF_8);
        StringBuilder list = new StringBuilder();
        users.forEach((role, password) ->
                list.append('"').append(role).append("\" \"").append(password).append("\"\n"));
        Path userlist = dir.resolve("userlist.txt");
        Files.writeString(userlist, list, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(userlist, PosixFilePermissions.fromString("rw-------"));
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(ServerProcess.HOST, port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The server behind this PgBouncer. */
    public PostgresServer server() {
        return server;
    }

    /**
     * {@code jdbc:postgresql://127.0.0.1:port/distlock_test?prepareThreshold=0}: the driver's named
     * server-side prepared statements belong to one server connection, which in transaction mode a
     * client keeps only until its transaction ends, so they are turned off.
     */
    public String jdbcUrl() {
        return "jdbc:postgresql://" + address() + "/" + PostgresServer.DATABASE + "?prepareThreshold=0";
    }

    /**
     * The client connections PgBouncer has from {@code role} to the database ({@code SHOW CLIENTS}
     * on its admin console, through {@code psql}).
     */
    public int clientConnections(String role) {
        String out = admin("SHOW CLIENTS");
        int n = 0;
        for (String line : out.split("\n")) {
            String[] f = line.split("\\|", -1);
            // type|user|database|...
            if (f.length > 2 && f[1].equals(role) && f[2].equals(PostgresServer.DATABASE)) {
                n++;
            }
        }
        return n;
    }

    private String admin(String command) {
        List<String> c = new ArrayList<>(List.of(
                PostgresServer.psql().toString(),
                "-X",
                "-q",
                "-A",
                "-t",
                "-h",
                host(),
                "-p",
                Integer.toString(port()),
                "-U",
                server.user(),
                "-d",
                ADMIN_DATABASE,
                "-c",
                command));
        try {
            Path out = Files.createTempFile(dir, "admin", ".out");
            try {
                int rc = PostgresServer.run(
                        c, dir, Duration.ofSeconds(30), out, Map.of("PGPASSWORD", server.password()));
                String text = Files.readString(out, StandardCharsets.UTF_8).trim();
                if (rc != 0) {
                    throw new IllegalStateException(
                            "psql on PgBouncer's admin console exited with " + rc + ": " + text);
                }
                return text;
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            throw new IllegalStateException("psql on PgBouncer's admin console failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking PgBouncer's admin console", e);
        }
    }
}
