package io.distlock;

/**
 * A monotonic nanosecond time source. Validity deadlines, wait budgets and renewal schedules are
 * measured with a ticker, never with wall-clock time, so that a clock step (NTP, a manual change)
 * can neither extend nor shorten a lease as the client sees it.
 *
 * <p>Only differences between two readings of the same ticker are meaningful.
 */
@FunctionalInterface
public interface Ticker {

    /** Nanoseconds since an arbitrary origin; never decreases. */
    long read();

    /** {@link System#nanoTime()}. */
    static Ticker system() {
        return System::nanoTime;
    }
}
