package io.distlock.spi;

/** How a driver's leases stay alive. */
public enum RenewalMode {
    /** The engine's watchdog calls {@link HeldLock#renew()} periodically (TTL-based backends). */
    WATCHDOG,
    /**
     * The backend keeps leases alive itself (a session or a lease keepalive shared by all locks);
     * the engine never calls {@link HeldLock#renew()} and follows {@link HeldLock#validUntilNanos()}.
     */
    SESSION
}
