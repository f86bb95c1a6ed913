package io.distlock.nemesis;

import io.distlock.testing.servers.MariaDbServer;
import io.distlock.testing.servers.PostgresServer;
import io.distlock.testing.servers.TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * One server process of a backend as the soak samples it every minute: its resident memory and its
 * client connections as the server itself counts them (the probe's own connection included, the
 * same in every sample). {@link Topology#probes()} names a backend's probes.
 */
abstract class ServerProbe {
    private static final int TIMEOUT_MS = 2000;

    /** The node's address, {@code host:port}. */
    abstract String node();

    /** The server process's pid, or empty when it is not running. */
    abstract OptionalLong pid();

    /** The client connections the server counts, or empty when it does not answer. */
    abstract OptionalLong connections();

    /** What {@link #connections()} is, in a few words. */
    abstract String metric();

    /** The resident memory of the server process ({@code VmRSS} in {@code /proc/<pid>/status}), or -1. */
    final long rssBytes() {
        OptionalLong pid = pid();
        if (pid.isEmpty()) {
            return -1;
        }
        try {
            for (String line : Files.readAllLines(Paths.get("/proc", Long.toString(pid.getAsLong()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.substring(6).replace("kB", "").trim()) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone, or not Linux
        }
        return -1;
    }

    /** A Redis server or Sentinel: {@code connected_clients} of {@code INFO clients}. */
    static ServerProbe redis(TestServer server) {
        return new OfServer(server, "connected_clients of INFO clients, summed over the nodes") {
            @Override
            OptionalLong connections() {
                String info = talk(server, "INFO clients\r\n", "\r\n\r\n");
                return field(info, "connected_clients:");
            }
        };
    }

    /** A ZooKeeper server: {@code zk_num_alive_connections} of the {@code mntr} four-letter word. */
    static ServerProbe zookeeper(TestServer server) {
        return new OfServer(server, "zk_num_alive_connections of mntr, summed over the members") {
            @Override
            OptionalLong connections() {
                return field(talk(server, "mntr", null), "zk_num_alive_connections");
            }
        };
    }

    /**
     * An etcd member: its gRPC calls in progress, {@code grpc_server_started_total} minus {@code
     * grpc_server_handled_total} of {@code /metrics} (the open watch and lease keep-alive streams and
     * unary calls in flight: each client holds its streams for its whole life).
     */
    static ServerProbe etcd(TestServer server) {
        return new OfServer(
                server,
                "gRPC calls open (grpc_server_started_total − grpc_server_handled_total of /metrics: watch and"
                        + " lease keep-alive streams), summed over the members") {
            @Override
            OptionalLong connections() {
                String metrics = httpGet(server, "/metrics");
                if (metrics == null) {
                    return OptionalLong.empty();
                }
                return OptionalLong.of(
                        sum(metrics, "grpc_server_started_total") - sum(metrics, "grpc_server_handled_total"));
            }
        };
    }

    /** A MariaDB or MySQL server: {@code Threads_connected}. */
    static ServerProbe mariaDb(MariaDbServer server) {
        return sql(server, server::connect, "SHOW GLOBAL STATUS LIKE 'Threads_connected'", 2, "Threads_connected");
    }

    /**
     * A PostgreSQL server: its client backends in {@code pg_stat_activity} (one per connection; the
     * resident memory is the postmaster's, not its backends').
     */
    static ServerProbe postgres(PostgresServer server) {
        return sql(
                server,
                server::connect,
                "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'",
                1,
                "client backends in pg_stat_activity");
    }

    /** A SQL server whose {@code query} answers the connection count in column {@code column}. */
    private static ServerProbe sql(TestServer server, SqlConnect connect, String query, int column, String metric) {
        return new OfServer(server, metric) {
            @Override
            OptionalLong connections() {
                try (Connection c = connect.open();
                        Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery(query)) {
                    return rs.next() ? OptionalLong.of(rs.getLong(column)) : OptionalLong.empty();
                } catch (SQLException e) {
                    return OptionalLong.empty();
                }
            }
        };
    }

    /** Opens a connection to a SQL server. */
    @FunctionalInterface
    private interface SqlConnect {
        Connection open() throws SQLException;
    }

    /**
     * Any server listening on {@code node}'s port, for a backend without a probe of its own: the
     * established TCP connections to that port ({@code /proc/net/tcp}, {@code /proc/net/tcp6}), and
     * the process that owns the listening socket.
     */
    static ServerProbe tcp(String node) {
        int port = Integer.parseInt(node.substring(node.lastIndexOf(':') + 1));
        return new ServerProbe() {
            @Override
            String node() {
                return node;
            }

            @Override
            OptionalLong pid() {
                return ProcNet.listenerPid(port);
            }

            @Override
            OptionalLong connections() {
                return ProcNet.established(port);
            }

            @Override
            String metric() {
                return "established TCP connections to the server ports (/proc/net/tcp)";
            }
        };
    }

    /** The probes of {@code nodes} ({@code host:port}) by their ports. */
    static List<ServerProbe> byPorts(List<String> nodes) {
        return nodes.stream().map(ServerProbe::tcp).toList();
    }

    /** A probe of a {@link TestServer}, whose pid the launcher knows. */
    private abstract static class OfServer extends ServerProbe {
        private final TestServer server;
        private final String metric;

        OfServer(TestServer server, String metric) {
            this.server = server;
            this.metric = metric;
        }

        @Override
        final String node() {
            return server.address();
        }

        @Override
        final OptionalLong pid() {
            try {
                return server.isRunning() ? OptionalLong.of(server.pid()) : OptionalLong.empty();
            } catch (IllegalStateException stopped) {
                return OptionalLong.empty();
            }
        }

        @Override
        final String metric() {
            return metric;
        }
    }

    /** Sends {@code request}, reads until {@code end} (or the end of the stream); null if the server does not answer. */
    static String talk(TestServer server, String request, String end) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(server.host(), server.port()), TIMEOUT_MS);
            s.setSoTimeout(TIMEOUT_MS);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            StringBuilder sb = new StringBuilder();
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) >= 0) {
                sb.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                if (end != null && sb.indexOf(end) >= 0) {
                    break;
                }
            }
            return sb.toString();
        } catch (IOException e) {
            return null;
        }
    }

    private static String httpGet(TestServer server, String path) {
        try {
            HttpURLConnection c = (HttpURLConnection)
                    URI.create("http://" + server.address() + path).toURL().openConnection();
            c.setConnectTimeout(TIMEOUT_MS);
            c.setReadTimeout(TIMEOUT_MS);
            try (InputStream in = c.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } finally {
                c.disconnect();
            }
        } catch (IOException e) {
            return null;
        }
    }

    /** The number after {@code name} (and a separator) on its line of {@code text}. */
    static OptionalLong field(String text, String name) {
        if (text == null) {
            return OptionalLong.empty();
        }
        for (String line : text.split("\r?\n")) {
            if (line.startsWith(name)) {
                String v = line.substring(name.length()).replace(":", "").trim();
                try {
                    return OptionalLong.of(Long.parseLong(v));
                } catch (NumberFormatException e) {
                    return OptionalLong.empty();
                }
            }
        }
        return OptionalLong.empty();
    }

    /** The sum of every sample of the Prometheus metric {@code name} in {@code text}. */
    static long sum(String text, String name) {
        double total = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return Math.round(total);
    }

    /** The Linux kernel's socket tables. */
    private static final class ProcNet {
        private static final List<Path> TABLES = List.of(Paths.get("/proc/net/tcp"), Paths.get("/proc/net/tcp6"));
        private static final String LISTEN = "0A";
        private static final String ESTABLISHED = "01";

        /** Rows of the socket tables: local port (hex), state, inode. */
        private static Stream<String[]> rows() {
            return TABLES.stream().flatMap(t -> {
                try {
                    return Files.readAllLines(t).stream()
                            .skip(1)
                            .map(l -> l.trim().split("\\s+"));
                } catch (IOException e) {
                    return Stream.empty();
                }
            });
        }

        private static boolean onPort(String[] row, int port) {
            String local = row[1];
            return Integer.parseInt(local.substring(local.lastIndexOf(':') + 1), 16) == port;
        }

        static OptionalLong established(int port) {
            long n = rows().filter(r -> r[3].equals(ESTABLISHED) && onPort(r, port))
                    .count();
            return OptionalLong.of(n);
        }

        static OptionalLong listenerPid(int port) {
            String inode = rows().filter(r -> r[3].equals(LISTEN) && onPort(r, port))
                    .map(r -> r[9])
                    .findFirst()
                    .orElse(null);
            if (inode == null) {
                return OptionalLong.empty();
            }
            String target = "socket:[" + inode + "]";
            try (Stream<Path> procs = Files.list(Paths.get("/proc"))) {
                for (Path proc : procs.filter(p -> p.getFileName().toString().matches("\\d+"))
                        .toList()) {
                    try (Stream<Path> fds = Files.list(proc.resolve("fd"))) {
                        if (fds.anyMatch(fd -> target.equals(readLink(fd)))) {
                            return OptionalLong.of(
                                    Long.parseLong(proc.getFileName().toString()));
                        }
                    } catch (IOException | SecurityException e) {
                        // another user's process, or gone
                    }
                }
            } catch (IOException e) {
                return OptionalLong.empty();
            }
            return OptionalLong.empty();
        }

        private static String readLink(Path fd) {
            try {
                return Files.readSymbolicLink(fd).toString();
            } catch (IOException | UnsupportedOperationException e) {
                return "";
            }
        }
    }
}
