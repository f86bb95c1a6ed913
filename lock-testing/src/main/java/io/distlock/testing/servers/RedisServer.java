package io.distlock.testing.servers;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A standalone {@code redis-server} on a free loopback port.
 *
 * <p>Test-speed mode (the default) persists nothing ({@code --save "" --appendonly no}): a {@link
 * #kill()} or {@link #restart(boolean)} loses every key. Durable mode ({@code --appendonly yes
 * --appendfsync always}) keeps every acknowledged write across {@code kill -9} and {@code
 * restart(true)}.
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.builder().durable(true).start()) {
 *     LockProvider p = LockProviders.open(redis.uri());
 * }
 * }</pre>
 *
 * In docker mode ({@link ServerMode}) a plain server (no extra arguments) runs in a container of
 * image {@code distlock.image.redis} with host networking.
 */
public final class RedisServer extends DelegatingTestServer {
    private final Probes.RedisAccess access;

    private RedisServer(TestServer delegate) {
        this(delegate, Probes.RedisAccess.PLAIN);
    }

    private RedisServer(TestServer delegate, Probes.RedisAccess access) {
        super(delegate);
        this.access = access;
    }

    /** Starts a test-speed server. */
    public static RedisServer start() {
        return builder().start();
    }

    /** A builder for a server with non-default settings. */
    public static Builder builder() {
        return new Builder();
    }

    /** Settings of a server to start. */
    public static final class Builder {
        private boolean durable;
        private final List<String> args = new ArrayList<>();
        private boolean forceLocal;
        private String kind = "redis";
        private String password;
        private TestCertificates tls;

        private Builder() {}

        /**
         * Requires this password for the {@code default} user ({@code --requirepass}); {@link
         * #call(String...)} and the readiness probe authenticate with it. ACL users can then be added
         * with {@code call("ACL", "SETUSER", ...)}.
         */
        public Builder password(String password) {
            this.password = Objects.requireNonNull(password, "password must not be null");
            return this;
        }

        /**
         * Serves TLS only, with the server certificate of {@code certificates} ({@code --port 0
         * --tls-port <port>}, no client certificates required); {@link #uri()} is then {@code
         * rediss://}. {@link #call(String...)} and the probe trust the test CA.
         */
        public Builder tls(TestCertificates certificates) {
            this.tls = Objects.requireNonNull(certificates, "certificates must not be null");
            return this;
        }

        /** Append-only file with fsync on every write (default false). */
        public Builder durable(boolean durable) {
            this.durable = durable;
            return this;
        }

        /** Extra {@code redis-server} arguments, e.g. {@code "--replicaof", "127.0.0.1", "6379"}. */
        public Builder args(String... extra) {
            for (String a : extra) {
                args.add(Objects.requireNonNull(a, "args must not contain null"));
            }
            return this;
        }

        Builder local() {
            this.forceLocal = true;
            return this;
        }

        Builder kind(String kind) {
            this.kind = kind;
            return this;
        }

        /** Starts the server and waits until it answers PING. */
        public RedisServer start() {
            if (!forceLocal && args.isEmpty() && password == null && tls == null && ServerMode.useDocker()) {
                return new RedisServer(DockerServers.redis(durable));
            }
            Path binary = Binaries.require("redis-server", "redis-server", "/usr/bin/redis-server");
            List<String> extra = new ArrayList<>(args);
            if (password != null) {
                extra.addAll(List.of("--requirepass", password));
            }
            if (tls != null) {
                extra.addAll(List.of(
                        "--tls-cert-file",
                        tls.serverCertificate().toString(),
                        "--tls-key-file",
                        tls.serverKey().toString(),
                        "--tls-ca-cert-file",
                        tls.caCertificate().toString(),
                        "--tls-auth-clients",
                        "no"));
            }
            boolean tlsOnly = tls != null;
            Probes.RedisAccess access =
                    new Probes.RedisAccess(tls == null ? null : tls.clientSocketFactory(), null, password);
            boolean durableMode = durable;
            String kindName = kind;
            return new RedisServer(
                    ServerProcess.startWithRetry(() -> new ServerProcess(
                            kindName,
                            ServerDirs.create(kindName),
                            Ports.free(),
                            s -> tlsOnly(command(binary, s.port(), s.dir(), durableMode, extra), tlsOnly),
                            s -> "PONG".equals(Probes.redisString(access, s.host(), s.port(), "PING")),
                            null,
                            null,
                            Duration.ofSeconds(20),
                            Map.of())),
                    access);
        }

        /** Moves the listening port from {@code --port} to {@code --tls-port} (plain port 0: none). */
        private static List<String> tlsOnly(List<String> command, boolean tlsOnly) {
            if (!tlsOnly) {
                return command;
            }
            List<String> c = new ArrayList<>(command);
            int i = c.indexOf("--port");
            String port = c.get(i + 1);
            c.set(i + 1, "0");
            c.addAll(List.of("--tls-port", port));
            return c;
        }
    }

    static List<String> command(Path binary, int port, Path dir, boolean durable, List<String> extra) {
        List<String> c = new ArrayList<>(List.of(
                binary.toString(),
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--protected-mode",
                "no",
                "--dir",
                dir.toString(),
                "--daemonize",
                "no",
                "--save",
                ""));
        if (durable) {
            c.addAll(List.of("--appendonly", "yes", "--appendfsync", "always"));
        } else {
            c.addAll(List.of("--appendonly", "no"));
        }
        c.addAll(extra);
        return c;
    }

    /**
     * {@code redis://127.0.0.1:port}, or {@code rediss://127.0.0.1:port} for a TLS server; never
     * with the password.
     */
    public String uri() {
        return (access.tls() == null ? "redis://" : "rediss://") + address();
    }

    /** Whether this server speaks TLS only. */
    public boolean tls() {
        return access.tls() != null;
    }

    /**
     * Sends one command as ACL user {@code user} (over TLS if the server uses it) and returns the
     * reply as text, e.g. to show what a restricted user may not do.
     *
     * @throws IOException if authentication fails or the server replies with an error (such as
     *     {@code NOPERM})
     */
    public String callAs(String user, String password, String... command) throws IOException {
        return Probes.redisString(new Probes.RedisAccess(access.tls(), user, password), host(), port(), command);
    }

    /**
     * Sends one command over a new connection and returns the reply as text (arrays as {@code
     * [a, b]}, null as ""), for test set-up and checks. On a server with a password or TLS the
     * connection authenticates as the {@code default} user and trusts the test CA.
     *
     * @throws IOException if the server does not answer or replies with an error
     */
    public String call(String... command) throws IOException {
        return Probes.redisString(access, host(), port(), command);
    }

    /**
     * Commands the server served to clients so far, from {@code INFO commandstats} (commands called
     * from scripts count too), leaving out what a deployment sends itself: Sentinel's and replicas'
     * {@code PING}, {@code INFO}, {@code REPLCONF}, {@code PUBLISH} of hellos, and connection set-up
     * ({@code HELLO}, {@code AUTH}, {@code CLIENT}, {@code SELECT}, {@code COMMAND}, ...). Only
     * differences mean something.
     *
     * @throws IOException if the server does not answer
     */
    public long clientCommandCalls() throws IOException {
        long n = 0;
        for (String line : call("INFO", "commandstats").split("\\r?\\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String command = line.substring("cmdstat_".length(), line.indexOf(':'));
            if (DEPLOYMENT_COMMANDS.contains(command.replaceFirst("\\|.*", ""))) {
                continue;
            }
            int calls = line.indexOf("calls=");
            int end = line.indexOf(',', calls);
            n += Long.parseLong(line.substring(calls + "calls=".length(), end < 0 ? line.length() : end));
        }
        return n;
    }

    /** Commands {@link #clientCommandCalls()} leaves out. */
    private static final java.util.Set<String> DEPLOYMENT_COMMANDS = java.util.Set.of(
            "ping",
            "info",
            "replconf",
            "publish",
            "hello",
            "auth",
            "client",
            "select",
            "command",
            "config",
            "cluster",
            "role",
            "psync",
            "sync",
            "multi",
            "exec",
            "slaveof",
            "replicaof",
            "sentinel");
}
