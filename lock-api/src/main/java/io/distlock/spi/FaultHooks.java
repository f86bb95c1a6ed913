package io.distlock.spi;

/**
 * Fault hooks a provider offers to the TCK and to fault-injection tests, reached through {@link
 * io.distlock.LockProvider#unwrap(Class) provider.unwrap(FaultHooks.class)}. Not for applications:
 * each hook leaves the provider unusable, the way the fault it imitates leaves a process.
 *
 * <p>Providers built on {@link LockEngine} offer them by returning {@link
 * LockEngine#faultHooks(Runnable)} from {@code unwrap}.
 */
public interface FaultHooks {

    /**
     * Makes this client stop the way a crashed or frozen process does: it stops renewing and drops
     * its connections (or sessions) without releasing anything, so its locks stay on the server
     * until their TTL, session or connection timeout runs out. Its leases are reported lost locally.
     */
    void simulateCrash();

    /**
     * Makes this client stop the way a frozen process does where that differs from {@link
     * #simulateCrash()} (for a backend whose server frees a lock at once when the connection
     * closes): it stops renewing and leaves its connections open and silent. Its leases are reported
     * lost locally; {@code close()} closes the connections afterwards.
     *
     * @throws UnsupportedOperationException if the backend has no such distinction (the default)
     */
    default void simulateFreeze() {
        throw new UnsupportedOperationException("simulateFreeze is not offered by this provider");
    }
}
