package io.distlock.compare.cli;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where a backend's existing servers are, from a URI given on the command line ({@code --redis
 * redis://staging:6379}), with credentials from the URI or from the environment ({@code
 * DISTLOCK_COMPARE_<BACKEND>_USER} and {@code _PASSWORD}, which fill in what the URI leaves out, so
 * that no password need be on the command line). Plain connections only: the comparison's probes and
 * peers do not speak TLS.
 *
 * @param backend the backend's name ({@code redis}, {@code redlock}, …)
 * @param nodes the servers' {@code host:port}, at least one
 * @param user the user name, or null
 * @param password the password, or null
 * @param path the URI's path without its leading {@code /}: the database for MySQL and PostgreSQL, the chroot for
 *     ZooKeeper, the database number for Redis; empty if none
 */
record ServerAddress(String backend, List<String> nodes, String user, String password, String path) {

    /** The URI scheme and default port of each backend. */
    private static final Map<String, String> SCHEMES = Map.of(
            "redis", "redis",
            "redlock", "redlock",
            "zookeeper", "zookeeper",
            "etcd", "etcd",
            "mysql", "mysql",
            "postgresql", "postgresql");

    private static final Map<String, Integer> PORTS =
            Map.of("redis", 6379, "redlock", 6379, "zookeeper", 2181, "etcd", 2379, "mysql", 3306, "postgresql", 5432);

    /**
     * The servers {@code uri} names for {@code backend}, credentials completed from {@code env}.
     *
     * @throws CompareOptions.UsageException naming the option and what is wrong
     */
    static ServerAddress parse(String backend, String uri, Map<String, String> env) {
        String option = "--" + backend;
        String scheme = SCHEMES.get(backend);
        if (scheme == null) {
            throw new CompareOptions.UsageException("no existing servers can be given for backend '" + backend + "'");
        }
        if (!uri.startsWith(scheme + "://")) {
            throw new CompareOptions.UsageException(option + " must be a " + scheme + ":// URI (was '"
                    + redact(uri) + "'); TLS servers are not supported: the comparison's probes and peers"
                    + " connect in plain text");
        }
        String rest = uri.substring(scheme.length() + 3);
        int query = rest.indexOf('?');
        if (query >= 0) {
            throw new CompareOptions.UsageException(option + " takes no parameters (was '" + redact(uri)
                    + "'): the comparison sets the lock options itself");
        }
        String user = null;
        String password = null;
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            String info = rest.substring(0, at);
            rest = rest.substring(at + 1);
            int colon = info.indexOf(':');
            user = decode(colon < 0 ? info : info.substring(0, colon));
            password = colon < 0 ? null : decode(info.substring(colon + 1));
        }
        int slash = rest.indexOf('/');
        String hosts = slash < 0 ? rest : rest.substring(0, slash);
        String path = slash < 0 ? "" : rest.substring(slash + 1);
        List<String> nodes = new ArrayList<>();
        for (String h : hosts.split(",")) {
            if (h.isBlank()) {
                throw new CompareOptions.UsageException(option + " names no host (was '" + redact(uri) + "')");
            }
            nodes.add(h.contains(":") ? h : h + ":" + PORTS.get(backend));
        }
        String prefix = "DISTLOCK_COMPARE_" + backend.toUpperCase(Locale.ROOT) + "_";
        if (user == null || user.isEmpty()) {
            user = env.getOrDefault(prefix + "USER", user);
        }
        if (password == null) {
            password = env.get(prefix + "PASSWORD");
        }
        boolean sql = backend.equals("mysql") || backend.equals("postgresql");
        if (sql && (path.isEmpty() || user == null || user.isEmpty())) {
            throw new CompareOptions.UsageException(option + " must name a user and a database: " + scheme
                    + "://user@host[:port]/database (the password in " + prefix + "PASSWORD)");
        }
        if (!backend.equals("redlock") && !backend.equals("zookeeper") && !backend.equals("etcd") && nodes.size() > 1) {
            throw new CompareOptions.UsageException(option + " names one server (was '" + redact(uri) + "')");
        }
        return new ServerAddress(backend, List.copyOf(nodes), emptyToNull(user), password, path);
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /** {@code uri} with the password of its user info replaced by {@code ***}. */
    static String redact(String uri) {
        return uri.replaceAll("(://[^/@:]*):[^/@]*@", "$1:***@");
    }

    /** The host of node {@code i}. */
    String host(int i) {
        String n = nodes.get(i);
        return n.substring(0, n.lastIndexOf(':'));
    }

    /** The port of node {@code i}. */
    int port(int i) {
        String n = nodes.get(i);
        return Integer.parseInt(n.substring(n.lastIndexOf(':') + 1));
    }

    /** {@code user:password@} for a URI, URL-encoded; empty without credentials. */
    String userInfo() {
        if (user == null && password == null) {
            return "";
        }
        return (user == null ? "" : enc(user)) + (password == null ? "" : ":" + enc(password)) + "@";
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** For the report: the nodes and the user, never the password. */
    String describe() {
        return String.join(",", nodes) + (user == null ? "" : " as " + user) + (path.isEmpty() ? "" : " /" + path);
    }

    /** This address at other nodes (the same credentials and path), for example a proxy's. */
    ServerAddress at(List<String> otherNodes) {
        return new ServerAddress(backend, List.copyOf(otherNodes), user, password, path);
    }

    @Override
    public String toString() {
        return backend + " " + describe();
    }
}
