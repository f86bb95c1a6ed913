package io.distlock.etcd;

import io.distlock.Credentials;
import io.distlock.LockNames;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.TimeoutOptions;
import io.distlock.tck.TckFixture;
import io.distlock.testing.faults.SlowReplies;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.auth.Permission;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The TCK fixture for etcd: every client is a new provider with its own jetcd client. With {@link
 * #authenticating} the server requires authentication: clients log in as a user whose only role
 * grants readwrite on the lock prefix, and {@link #newClientWithWrongCredentials} is supported.
 */
class EtcdTckFixture implements TckFixture {
    static final String PREFIX = "/distlock-test/";
    /** The end of {@link #PREFIX}'s range: {@code '/' + 1 = '0'}. */
    static final String PREFIX_END = "/distlock-test0";

    static final String USER = "distlock-tck";
    static final String PASSWORD = "tck-pw-7c:@/";
    private static final String ROOT_PASSWORD = "tck-root-pw-3";

    private final List<String> endpoints;
    private final EtcdServerControl server;
    private final Client admin;
    private final boolean perLockLease;
    /** The lock user's credentials, or null if the server does not authenticate. */
    private final Credentials credentials;

    EtcdTckFixture(List<String> endpoints, EtcdServerControl server) {
        this(endpoints, server, false);
    }

    /** @param perLockLease whether clients use one etcd lease per acquisition */
    EtcdTckFixture(List<String> endpoints, EtcdServerControl server, boolean perLockLease) {
        this(endpoints, server, perLockLease, null, jetcd(endpoints, null));
    }

    private EtcdTckFixture(
            List<String> endpoints,
            EtcdServerControl server,
            boolean perLockLease,
            Credentials credentials,
            Client admin) {
        this.endpoints = endpoints;
        this.server = server;
        this.perLockLease = perLockLease;
        this.credentials = credentials;
        this.admin = admin;
    }

    /**
     * A fixture whose server (a fresh one, auth not yet enabled) requires authentication: a {@code
     * root} user, and the lock user {@value #USER} with a role that may read and write {@code
     * [PREFIX, PREFIX_END)} only. The fixture's admin client logs in as root.
     */
    static EtcdTckFixture authenticating(List<String> endpoints, EtcdServerControl server) {
        try (Client setup = jetcd(endpoints, null)) {
            var auth = setup.getAuthClient();
            String role = "distlock-tck-locks";
            get(auth.userAdd(bytes("root"), bytes(ROOT_PASSWORD)));
            get(auth.userGrantRole(bytes("root"), bytes("root")));
            get(auth.roleAdd(bytes(role)));
            get(auth.roleGrantPermission(bytes(role), bytes(PREFIX), bytes(PREFIX_END), Permission.Type.READWRITE));
            get(auth.userAdd(bytes(USER), bytes(PASSWORD)));
            get(auth.userGrantRole(bytes(USER), bytes(role)));
            get(auth.authEnable());
        }
        return new EtcdTckFixture(
                endpoints,
                server,
                false,
                Credentials.of(USER, PASSWORD),
                jetcd(endpoints, Credentials.of("root", ROOT_PASSWORD)));
    }

    private static Client jetcd(List<String> endpoints, Credentials credentials) {
        var b = Client.builder().endpoints(endpoints.toArray(new String[0]));
        if (credentials != null) {
            b.user(bytes(credentials.username())).password(bytes(credentials.password()));
        }
        return b.build();
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    private static <T> T get(CompletableFuture<T> f) {
        try {
            return f.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("etcd auth setup failed", e);
        }
    }

    @Override
    public String backend() {
        return "etcd";
    }

    List<String> endpoints() {
        return endpoints;
    }

    /** The etcd options of every client. */
    EtcdLockOptions options() {
        return EtcdLockOptions.builder()
                .keyPrefix(PREFIX)
                .credentials(credentials)
                .timeouts(TimeoutOptions.of(Duration.ofSeconds(3)))
                .perLockLease(perLockLease)
                .build();
    }

    @Override
    public EtcdLockProvider newClient(LockOptions options) {
        return EtcdLockProvider.builder()
                .endpoints(endpoints)
                .options(options())
                .lockOptions(options)
                .build();
    }

    /** The lock user with a wrong password; unsupported unless the server authenticates. */
    @Override
    public LockProvider newClientWithWrongCredentials(LockOptions options) {
        if (credentials == null) {
            return TckFixture.super.newClientWithWrongCredentials(options);
        }
        return EtcdLockProvider.builder()
                .endpoints(endpoints)
                .options(options()
                        .mutate()
                        .credentials(Credentials.of(USER, "wrong-" + PASSWORD))
                        .build())
                .lockOptions(options)
                .build();
    }

    /** A client that reaches every member through its own proxy whose replies arrive {@code delay} late. */
    @Override
    public LockProvider newClientWithReplyDelay(LockOptions options, Duration delay) {
        List<String> targets = endpoints.stream()
                .map(e -> java.net.URI.create(e).getHost() + ":"
                        + java.net.URI.create(e).getPort())
                .toList();
        return SlowReplies.open(
                targets,
                delay,
                through -> EtcdLockProvider.builder()
                        .endpoints(through.stream().map(a -> "http://" + a).toList())
                        .options(options())
                        .lockOptions(options)
                        .build());
    }

    /**
     * Messages the members received from gRPC clients ({@code grpc_server_msg_received_total} of their
     * {@code /metrics}, summed): unary requests and the messages of streams (watch, keepalive).
     */
    @Override
    public long serverRequestCount() {
        long n = 0;
        for (String e : endpoints) {
            try (java.io.InputStream in =
                    java.net.URI.create(e + "/metrics").toURL().openStream()) {
                for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                    if (line.startsWith("grpc_server_msg_received_total")) {
                        n += (long) Double.parseDouble(
                                line.substring(line.lastIndexOf(' ') + 1).trim());
                    }
                }
            } catch (java.io.IOException ex) {
                throw new java.io.UncheckedIOException("cannot read the metrics of " + e, ex);
            }
        }
        return n;
    }

    Client admin() {
        return admin;
    }

    /** Keys currently under the lock's prefix, oldest first. */
    List<KeyValue> keys(String lockName) {
        ByteSequence prefix = bytes(PREFIX + LockNames.encode(lockName) + "/");
        try {
            return admin.getKVClient()
                    .get(
                            prefix,
                            GetOption.builder()
                                    .isPrefix(true)
                                    .withSortField(GetOption.SortTarget.CREATE)
                                    .withSortOrder(GetOption.SortOrder.ASCEND)
                                    .build())
                    .get(5, TimeUnit.SECONDS)
                    .getKvs();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read keys of " + lockName, e);
        }
    }

    @Override
    public void expireLease(String lockName) {
        List<KeyValue> kvs = keys(lockName);
        if (kvs.isEmpty()) {
            throw new IllegalStateException("lock '" + lockName + "' has no holder");
        }
        try {
            admin.getLeaseClient().revoke(kvs.get(0).getLease()).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot revoke the holder's lease of " + lockName, e);
        }
    }

    /** Kills the member(s); clients' requests fail until {@link #startServer()}. */
    @Override
    public void stopServer() {
        server.stop();
    }

    /** Starts the member(s) again on the same ports, with their data (revisions survive). */
    @Override
    public void startServer() {
        server.startAgain();
    }

    /**
     * Established TCP connections to the members' client ports, counted on the server side from
     * {@code /proc/net/tcp{,6}} (etcd 3.4 exports no connection gauge). Includes this fixture's
     * admin client.
     */
    @Override
    public int serverConnectionCount() {
        java.util.Set<Integer> ports = new java.util.HashSet<>();
        for (String e : endpoints) {
            ports.add(java.net.URI.create(e).getPort());
        }
        int n = 0;
        for (String f : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            java.nio.file.Path path = java.nio.file.Path.of(f);
            if (!java.nio.file.Files.isReadable(path)) {
                continue;
            }
            try {
                for (String line : java.nio.file.Files.readAllLines(path)) {
                    String[] cols = line.trim().split("\\s+");
                    if (cols.length < 4 || !cols[3].equals("01")) { // 01 = ESTABLISHED
                        continue;
                    }
                    String local = cols[1];
                    int port = Integer.parseInt(local.substring(local.indexOf(':') + 1), 16);
                    if (ports.contains(port)) {
                        n++;
                    }
                }
            } catch (java.io.IOException | NumberFormatException ex) {
                throw new IllegalStateException("cannot read " + f, ex);
            }
        }
        return n;
    }

    @Override
    public void close() {
        admin.close();
        server.close();
    }
}
