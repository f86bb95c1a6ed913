package io.distlock.tck;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.spi.FaultHooks;
import java.time.Duration;

/**
 * What a backend gives the TCK: a way to open independent clients, and optional fault hooks.
 *
 * <p>An implementer writes one fixture and one test class extending {@link LockProviderTck}. Every
 * hook has a default that throws {@link UnsupportedHookException}; the TCK rules that need a hook
 * are then skipped, and the compatibility report shows the reason. Nothing passes by doing nothing.
 *
 * <p>A fixture is opened once per test class and closed after it; it owns whatever server it
 * started.
 */
public interface TckFixture extends AutoCloseable {

    /** Short backend name, used in test names and the compatibility report. */
    String backend();

    /**
     * Opens a new, independent client of the backend, as if from another process: its own
     * connections and its own provider. The TCK closes every client it opens.
     *
     * @param options lease settings for the client; fixtures must honour leaseTime, autoRenew,
     *     maxHoldTime, observer and ticker
     */
    LockProvider newClient(LockOptions options);

    /**
     * Makes the server forget the current holder of {@code lockName} now, as if its lease had
     * expired (Redis: delete the key; ZooKeeper: expire the holder's session; etcd: revoke the
     * lease; MySQL: kill the holder's connection).
     */
    default void expireLease(String lockName) {
        throw new UnsupportedHookException("expireLease");
    }

    /**
     * Makes {@code client} stop the way a frozen or unreachable process does (a long GC pause,
     * SIGSTOP, a partition): it stops renewing and answering and releases nothing, and the server
     * learns of it only through TTL, session or connection-timeout expiry. TCK-7.1 checks that the
     * lock is not granted again before the frozen holder's own validity deadline, which is the
     * safety property a pause needs.
     *
     * <p>Not a kill: a killed process's sockets are closed by the operating system, which some
     * backends (MySQL, ZooKeeper on a clean close) take as an immediate release. That case has no
     * stale belief left to protect; fault suites cover it with real child JVMs.
     *
     * <p>The default calls {@link FaultHooks#simulateCrash()} of the provider's {@code
     * unwrap(FaultHooks.class)}, and is unsupported if the provider offers no such hook.
     */
    default void crashClient(LockProvider client) {
        client.unwrap(FaultHooks.class)
                .orElseThrow(() -> new UnsupportedHookException("crashClient"))
                .simulateCrash();
    }

    /**
     * Opens a client of the fixture's server like {@link #newClient(LockOptions)}, but with wrong
     * credentials: a wrong password for an existing user, or a user the server does not know. Rule
     * TCK-12.1 expects the client to fail with {@link io.distlock.LockConfigurationException} — here,
     * while it is opened (let the exception propagate unchanged), or on its first request — at once
     * and without retrying, and never with {@link io.distlock.BackendUnavailableException}, which
     * tells callers to retry.
     *
     * <p>Implement it when the fixture's server requires authentication (a server that does not
     * would accept the wrong credentials, and the rule fails). A backend without credentials throws
     * {@link UnsupportedHookException} with the reason, which the report shows. Unsupported by
     * default: TCK-12.1 is then skipped.
     */
    default LockProvider newClientWithWrongCredentials(LockOptions options) {
        throw new UnsupportedHookException("newClientWithWrongCredentials");
    }

    /**
     * Cuts {@code client} off from the server (requests hang or fail) until {@link
     * #restoreClientNetwork(LockProvider)}.
     */
    default void cutClientNetwork(LockProvider client) {
        throw new UnsupportedHookException("cutClientNetwork");
    }

    /** Undoes {@link #cutClientNetwork(LockProvider)}. */
    default void restoreClientNetwork(LockProvider client) {
        throw new UnsupportedHookException("restoreClientNetwork");
    }

    /** Stops the server (all clients' requests fail) until {@link #startServer()}. */
    default void stopServer() {
        throw new UnsupportedHookException("stopServer");
    }

    /** Starts the server again after {@link #stopServer()}, with its data where it persists it. */
    default void startServer() {
        throw new UnsupportedHookException("startServer");
    }

    /**
     * Number of connections the server currently sees from clients (for the "close leaves no
     * connections" rule). Unsupported by default.
     */
    default int serverConnectionCount() {
        throw new UnsupportedHookException("serverConnectionCount");
    }

    /**
     * Opens a client like {@link #newClient(LockOptions)} whose replies from the server arrive {@code
     * delay} late: every request reaches the server at once, its answer {@code delay} after the
     * server sent it (a slow network on the way back; a TCP proxy with that latency downstream, as
     * {@code io.distlock.testing.faults.TcpProxy} offers). TCK-1.8 checks that a lease's validity is
     * counted from before the request, and TCK-2.5 that a waiter whose "held" reply arrives after the
     * holder released does not miss the release. Unsupported by default: those rules are then
     * skipped.
     *
     * @param delay how late every reply arrives; the rules use a few hundred milliseconds
     */
    default LockProvider newClientWithReplyDelay(LockOptions options, Duration delay) {
        throw new UnsupportedHookException("newClientWithReplyDelay");
    }

    /**
     * The number of requests the server has served so far, from the server's own statistics (Redis
     * {@code INFO commandstats} or {@code total_commands_processed}, ZooKeeper {@code mntr}
     * {@code zk_packets_received}, etcd's gRPC request metrics, MySQL/PostgreSQL status counters such
     * as {@code Questions}), summed over the servers a client talks to. Only differences are used,
     * so requests of the fixture's own admin connections add a constant. TCK-2.6 checks with it
     * that a backend declaring {@code WakeUp.NOTIFICATION} does not poll. Unsupported by default: the
     * rule is then skipped.
     */
    default long serverRequestCount() {
        throw new UnsupportedHookException("serverRequestCount");
    }

    /**
     * Whether {@code thread} belongs to a pool that a client library shares among all its clients
     * in the JVM (started once, kept after a client closes by design, as gRPC's {@code
     * grpc-default-executor} or a driver's static cleanup thread are). TCK-3.6 checks that every
     * other thread a client started is gone after it is closed, whatever its name. The default: no
     * thread is shared.
     */
    default boolean isSharedThread(Thread thread) {
        return false;
    }

    /** A short description of {@code lease} for failure messages (the default prints its token). */
    default String describe(Lease lease) {
        return lease.lockName() + "#" + lease.fencingToken();
    }

    /** Stops servers and releases resources the fixture holds. */
    @Override
    default void close() {}
}
