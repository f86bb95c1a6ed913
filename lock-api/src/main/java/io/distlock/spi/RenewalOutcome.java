package io.distlock.spi;

import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link BatchRenewal} found for one lock: renewed (the server still held it for this client
 * and its time to live was extended), gone (the lock is gone or owned by another client: the lease is
 * lost), or failed (the outcome is unknown, for example the request timed out: the engine keeps the
 * lease until its validity deadline and retries at the next renewal).
 */
public final class RenewalOutcome {
    /** The lock was extended; its {@link HeldLock#validUntilNanos()} has moved. */
    public static final RenewalOutcome RENEWED = new RenewalOutcome(null, true);

    /** The lock is gone or owned by another client. */
    public static final RenewalOutcome GONE = new RenewalOutcome(null, false);

    private final RuntimeException failure;
    private final boolean renewed;

    private RenewalOutcome(RuntimeException failure, boolean renewed) {
        this.failure = failure;
        this.renewed = renewed;
    }

    /** {@link #RENEWED} if {@code renewed}, else {@link #GONE}. */
    public static RenewalOutcome of(boolean renewed) {
        return renewed ? RENEWED : GONE;
    }

    /**
     * The outcome is unknown because of {@code cause} (typically a {@link
     * io.distlock.BackendUnavailableException}).
     */
    public static RenewalOutcome failed(RuntimeException cause) {
        return new RenewalOutcome(Objects.requireNonNull(cause, "cause must not be null"), false);
    }

    /** Whether the lock was extended. */
    public boolean renewed() {
        return renewed;
    }

    /** Whether the server said the lock is gone or another client's. */
    public boolean gone() {
        return !renewed && failure == null;
    }

    /** Why the outcome is unknown; empty if it is known. */
    public Optional<RuntimeException> failure() {
        return Optional.ofNullable(failure);
    }

    @Override
    public String toString() {
        return renewed ? "RENEWED" : failure == null ? "GONE" : "FAILED(" + failure + ")";
    }
}
