package io.distlock.tck.servers;

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

    private RedisServer(TestServer delegate) {
        super(delegate);
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

        private Builder() {}

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
            if (!forceLocal && args.isEmpty() && ServerMode.useDocker()) {
                return new RedisServer(DockerServers.redis(durable));
            }
            Path binary = Binaries.require("redis-server", "redis-server", "/usr/bin/redis-server");
            List<String> extra = List.copyOf(args);
            boolean durableMode = durable;
            String kindName = kind;
            return new RedisServer(ServerProcess.startWithRetry(() -> new ServerProcess(
                    kindName,
                    ServerDirs.create(kindName),
                    Ports.free(),
                    s -> command(binary, s.port(), s.dir(), durableMode, extra),
                    s -> "PONG".equals(Probes.redisString(s.host(), s.port(), "PING")),
                    null,
                    null,
                    Duration.ofSeconds(20),
                    Map.of())));
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

    /** {@code redis://127.0.0.1:port}. */
    public String uri() {
        return "redis://" + address();
    }

    /**
     * Sends one command over a new connection and returns the reply as text (arrays as {@code
     * [a, b]}, null as ""), for test set-up and checks.
     *
     * @throws IOException if the server does not answer or replies with an error
     */
    public String call(String... command) throws IOException {
        return Probes.redisString(host(), port(), command);
    }
}
