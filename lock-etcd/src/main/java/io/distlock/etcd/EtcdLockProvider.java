package io.distlock.etcd;

import io.distlock.Capabilities;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.etcd.internal.ChannelTap;
import io.distlock.etcd.internal.EtcdDriver;
import io.distlock.spi.LockEngine;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.LoggerFactory;

/**
 * Distributed locks on etcd ({@code etcd://host1:2379,host2:2379}): revision-ordered keys on one
 * session lease, with the key's create revision as fencing token.
 *
 * <h2>How it works</h2>
 *
 * The provider grants one etcd lease (the <em>session</em>, TTL = {@link LockOptions#leaseTime()}
 * rounded up to whole seconds) and keeps it alive with one keepalive request every {@code leaseTime
 * * renewalFraction}, however many locks it holds. An acquisition is one transaction: create {@code
 * <prefix><encoded name>/<lease>-<attempt>} with the lease if absent, and read the oldest key under
 * the lock's prefix. If that is ours, we hold the lock; otherwise we watch the lock's deletes and
 * count down the keys older than ours: when the last one goes we hold the lock, without another
 * request, and only that waiter is woken. Release deletes our key (one round trip);
 * {@link #close()} revokes the session lease, which deletes every key on it.
 *
 * <h2>Guarantees and limits</h2>
 *
 * <ul>
 *   <li>Mutual exclusion holds while etcd keeps a quorum: the server grants a lock to one key at a
 *       time, linearizably.
 *   <li>Fencing: {@link Lease#fencingToken()} is our key's create revision, which strictly increases
 *       across all locks, clients and server restarts (etcd persists it). A resource accepts a
 *       write only if its token is at least the largest it has seen ({@link
 *       io.distlock.fencing.FencingGuard}). A resource that itself stores in etcd can instead guard
 *       the write natively: a transaction {@code If(createRevision(lockKey) == token)
 *       Then(put(...))}, which fails once our key is gone.
 *   <li>A lease is reported valid until {@code lastKeepaliveSent + leaseTime - safetyMargin} on this
 *       JVM's monotonic clock; the server keeps the lease at least {@code leaseTime} after receiving
 *       that keepalive. A process paused longer than that (GC, VM freeze) may resume believing it
 *       holds a lock that another client now holds: only the fencing token protects the resource
 *       then. The loss is signalled ({@link Lease#lost()}) when the server says the lease is gone,
 *       when our key is deleted by someone else, or when the validity deadline passes without a
 *       successful keepalive.
 *   <li>A leader change or the loss of a minority of members keeps held locks (etcd carries leases
 *       over and restarts their TTL on a new leader).
 *   <li>Waiters are served in the order they first asked (create revision), unless their session
 *       dies, in which case they queue again.
 * </ul>
 *
 * <h2>Per-lock leases</h2>
 *
 * With {@link EtcdLockOptions.Builder#perLockLease(boolean) perLockLease(true)} (URI: {@code
 * perLockLease=true}) every acquisition gets its own etcd lease instead of the session's, so a lock
 * lost (revoked, expired) takes no other lock with it. Cost: one more round trip per acquisition
 * ({@code LeaseGrant} before the transaction); release revokes the lease (one round trip, it
 * deletes the key). Each such lease is kept alive like the session lease (one keepalive every {@code
 * leaseTime * renewalFraction}, validity counted from when it was sent), so keepalive traffic grows
 * with the number of held locks, unlike the session's. etcd and jetcd handle thousands of leases
 * poorly: keep the session lease for many locks per process.
 *
 * <pre>{@code
 * try (EtcdLockProvider locks = EtcdLockProvider.builder()
 *         .etcdOptions(EtcdLockOptions.builder().endpoints("10.0.0.1:2379", "10.0.0.2:2379").build())
 *         .leaseTime(Duration.ofSeconds(10))
 *         .build()) {
 *     try (Lease lease = locks.lock("invoice-42").acquire()) {
 *         store.write(data, lease.fencingToken().getAsLong());
 *     }
 * }
 * }</pre>
 */
public final class EtcdLockProvider implements LockProvider {
    /** Default session lease time when no {@link LockOptions} are given: 10 seconds. */
    public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(10);

    private final LockEngine engine;
    private final EtcdDriver driver;
    private final EtcdLockOptions etcdOptions;

    private EtcdLockProvider(Builder b) {
        this.etcdOptions = b.etcdOptions;
        Client client = b.client;
        boolean owns = client == null;
        ChannelTap tap = null;
        if (owns) {
            tap = EtcdDriver.channelTap(etcdOptions);
            client = buildClient(etcdOptions, tap);
        }
        this.driver = new EtcdDriver(client, owns, etcdOptions, b.options, tap);
        this.engine = LockEngine.create(driver, b.options);
    }

    /** A fifth of the request timeout, at least 1 ms, at most jetcd's default of 500 ms. */
    static long retryDelayMillis(Duration requestTimeout) {
        return Math.max(1, Math.min(500, requestTimeout.toMillis() / 5));
    }

    /** Half the request timeout, at most jetcd's default of 2.5 s, always above the first delay. */
    static long retryMaxDelayMillis(Duration requestTimeout) {
        return Math.max(retryDelayMillis(requestTimeout) + 1, Math.min(2_500, requestTimeout.toMillis() / 2));
    }

    /** gRPC's HTTP/2 frame logger: at DEBUG it writes every frame in hex. */
    static final String GRPC_FRAME_LOGGER = "io.grpc.netty.NettyClientHandler";

    /**
     * gRPC (grpc-netty) logs every HTTP/2 frame in hex on {@link #GRPC_FRAME_LOGGER} at DEBUG —
     * including jetcd's {@code Authenticate} request, which carries the user name and password, and
     * the {@code token} header of every later call. Nothing in SLF4J lets a library turn a logger
     * off, so warn (without any secret) when that logger is enabled.
     */
    private static void warnIfGrpcFramesAreLogged() {
        boolean slf4j = LoggerFactory.getLogger(GRPC_FRAME_LOGGER).isDebugEnabled();
        boolean jul = java.util.logging.Logger.getLogger(GRPC_FRAME_LOGGER).isLoggable(java.util.logging.Level.FINE);
        if (slf4j || jul) {
            LoggerFactory.getLogger(EtcdLockProvider.class)
                    .warn(
                            "distlock.etcd.grpc_frames_logged logger={}: at DEBUG gRPC writes every HTTP/2 frame in hex,"
                                    + " including the etcd password (Authenticate request) and the auth token; set that"
                                    + " logger to INFO or above",
                            GRPC_FRAME_LOGGER);
        }
    }

    /**
     * The endpoints that would receive credentials in clear: plain {@code http} to a host that is
     * not a loopback address ({@code localhost} or a literal loopback IP; other names are not
     * resolved and count as remote). Empty when TLS is on or no credentials are set.
     */
    static List<String> credentialsInClear(EtcdLockOptions o) {
        if (o.user().isEmpty() || o.tls()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (String uri : o.endpointUris()) {
            String host = URI.create(uri).getHost();
            if (host == null || !isLoopback(host)) {
                out.add(uri);
            }
        }
        return out;
    }

    private static boolean isLoopback(String host) {
        if (host.equalsIgnoreCase("localhost")) {
            return true;
        }
        String literal = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (!literal.matches("[0-9.]+|[0-9a-fA-F:]*:[0-9a-fA-F:.]*")) {
            return false; // a name: not resolved here
        }
        try {
            return InetAddress.getByName(literal).isLoopbackAddress(); // a literal: no lookup
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static Client buildClient(EtcdLockOptions o, ChannelTap tap) {
        ClientBuilder cb = Client.builder()
                .endpoints(o.endpointUris().toArray(new String[0]))
                .connectTimeout(o.requestTimeout())
                .retryMaxDuration(o.requestTimeout())
                // jetcd's default backoff (500 ms to 2.5 s) must fit inside retryMaxDuration, or every
                // request fails with "maxDuration must be > the delay" for timeouts under 500 ms
                .retryChronoUnit(ChronoUnit.MILLIS)
                .retryDelay(retryDelayMillis(o.requestTimeout()))
                .retryMaxDelay(retryMaxDelayMillis(o.requestTimeout()))
                // fail fast (and retry) while no connection is ready, instead of waiting silently until
                // the deadline: the caller then sees why (refused, TLS handshake failed, ...)
                .waitForReady(false)
                .interceptor(tap); // a deadline on every unary call; the shared watch stream's channel
        if (o.user().isPresent()) {
            cb.user(ByteSequence.from(o.user().get(), StandardCharsets.UTF_8));
            cb.password(ByteSequence.from(o.password().orElse(""), StandardCharsets.UTF_8));
            warnIfGrpcFramesAreLogged();
            List<String> clear = credentialsInClear(o);
            if (!clear.isEmpty()) {
                LoggerFactory.getLogger(EtcdLockProvider.class)
                        .warn(
                                "distlock.etcd.credentials_in_clear endpoints={}: the etcd user and password go to"
                                        + " these endpoints without TLS; use https endpoints (trustCertificate)",
                                clear);
            }
        }
        if (o.trustCertificate().isPresent() || o.clientCertificate().isPresent()) {
            try {
                cb.sslContext(ssl -> {
                    if (o.trustCertificate().isPresent()) {
                        ssl.trustManager(o.trustCertificate().get().toFile());
                    }
                    if (o.clientCertificate().isPresent()) {
                        ssl.keyManager(
                                o.clientCertificate().get().toFile(),
                                o.clientKey().orElseThrow().toFile());
                    }
                });
            } catch (javax.net.ssl.SSLException | IllegalArgumentException e) {
                throw new LockConfigurationException(
                        "cannot use trustCertificate " + o.trustCertificate().orElse(null) + ", clientCertificate "
                                + o.clientCertificate().orElse(null) + ", clientKey "
                                + o.clientKey().orElse(null)
                                + ": " + e.getMessage(),
                        "etcd",
                        e);
            }
        }
        return cb.build();
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public DistributedLock lock(String name) {
        return engine.lock(name);
    }

    @Override
    public Capabilities capabilities() {
        return engine.capabilities();
    }

    @Override
    public String backend() {
        return engine.backend();
    }

    @Override
    public List<Lease> heldLeases() {
        return engine.heldLeases();
    }

    /** The lock settings (lease time, safety margin) this provider runs with. */
    public LockOptions options() {
        return engine.options();
    }

    /** The etcd settings this provider runs with. */
    public EtcdLockOptions etcdOptions() {
        return etcdOptions;
    }

    /** The id of the current session lease, or -1 if none is granted yet (for tools and tests). */
    public long sessionLeaseId() {
        return driver.currentLeaseId();
    }

    /** gRPC watch streams this provider opened (its shared one, reopened after a break); -1: none (tests). */
    long watchStreamsOpened() {
        return driver.watchStreamsOpened();
    }

    /** Watches set up on this provider's shared watch stream; -1: none (tests). */
    long sharedWatchesSetUp() {
        return driver.sharedWatchesSetUp();
    }

    /**
     * Simulates a crash of this client: keepalives stop and the connection closes without revoking
     * the session lease, so its locks stay on the server until the lease's TTL runs out. Held
     * leases are reported lost locally. For tests and fault injection.
     */
    public void simulateCrash() {
        driver.crash();
        engine.abandon();
    }

    /**
     * Releases held leases, revokes the session lease (deleting every key on it), stops the
     * keepalive thread and closes the jetcd client if this provider created it.
     */
    @Override
    public void close() {
        engine.close();
    }

    @Override
    public String toString() {
        return "EtcdLockProvider{" + etcdOptions + ", " + engine.options() + '}';
    }

    /** Builder for {@link EtcdLockProvider}. */
    public static final class Builder {
        private EtcdLockOptions etcdOptions = EtcdLockOptions.defaults();
        private LockOptions options =
                LockOptions.defaults().mutate().leaseTime(DEFAULT_LEASE_TIME).build();
        private Client client;

        private Builder() {}

        public Builder etcdOptions(EtcdLockOptions etcdOptions) {
            this.etcdOptions = Objects.requireNonNull(etcdOptions, "etcdOptions must not be null");
            return this;
        }

        /** Lease settings; {@code leaseTime} is the session lease's TTL. Default: 10 s lease time. */
        public Builder options(LockOptions options) {
            this.options = Objects.requireNonNull(options, "options must not be null");
            return this;
        }

        /** Shortcut for {@code options(options.mutate().leaseTime(leaseTime).build())}. */
        public Builder leaseTime(Duration leaseTime) {
            this.options = options.mutate().leaseTime(leaseTime).build();
            return this;
        }

        /**
         * Uses an existing jetcd client instead of building one from the endpoints, credentials and
         * TLS settings of {@link #etcdOptions(EtcdLockOptions)} (only its key prefix and request
         * timeout apply then). The provider does not close it. Requests are still bounded by the
         * request timeout on our side; give the client a deadline interceptor to bound them on the
         * wire too. Slower under contention than a client the provider builds: the provider cannot
         * reach such a client's channel, so every wait is a jetcd watcher (one gRPC stream each)
         * and every request takes jetcd's own path, instead of one shared watch stream per provider
         * and direct gRPC calls.
         */
        public Builder client(Client client) {
            this.client = Objects.requireNonNull(client, "client must not be null");
            return this;
        }

        /** The provider; it opens no connection until the first acquisition. */
        public EtcdLockProvider build() {
            return new EtcdLockProvider(this);
        }
    }
}
