package io.distlock.spi;

import io.distlock.Ticker;
import java.time.Duration;

/** Saturating arithmetic on ticker readings, for drivers and the engine. */
public final class Deadlines {

    /** A deadline that never comes. */
    public static final long NEVER = Long.MAX_VALUE;

    private Deadlines() {}

    /** {@code now + duration}, or {@link #NEVER} if that does not fit in a long. */
    public static long after(long now, Duration duration) {
        long nanos;
        try {
            nanos = duration.toNanos();
        } catch (ArithmeticException overflow) {
            return NEVER;
        }
        return after(now, nanos);
    }

    /** {@code now + nanos}, or {@link #NEVER} on overflow. */
    public static long after(long now, long nanos) {
        long r = now + nanos;
        if (((now ^ r) & (nanos ^ r)) < 0) {
            return NEVER;
        }
        return r;
    }

    /** Nanoseconds left until {@code deadline} (0 if passed; {@link Long#MAX_VALUE} for never). */
    public static long remaining(Ticker ticker, long deadline) {
        if (deadline == NEVER) {
            return Long.MAX_VALUE;
        }
        long left = deadline - ticker.read();
        return Math.max(0, left);
    }

    /** Whether {@code deadline} has passed. */
    public static boolean passed(Ticker ticker, long deadline) {
        return deadline != NEVER && deadline - ticker.read() <= 0;
    }
}
