package io.distlock;

import java.time.Duration;
import java.util.Objects;

/**
 * The network timeouts of a backend client, the same block on every backend: how long to wait for
 * a connection to open, and how long for the answer to one request. Immutable.
 *
 * <p>A request that passes its timeout fails with {@link BackendUnavailableException}; inside a
 * {@code tryAcquire(maxWait)} it is retried until the wait runs out. Timeouts that belong to one
 * backend's protocol (a ZooKeeper session timeout, a Redlock node's answer time) stay in that
 * backend's own options.
 *
 * @param connectTimeout longest wait for a new connection (TCP and, where used, TLS and
 *     authentication)
 * @param requestTimeout longest wait for the answer to one request on an open connection
 */
public record TimeoutOptions(Duration connectTimeout, Duration requestTimeout) {

    /** Default connect timeout: 2 seconds. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** Default request timeout: 2 seconds. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(2);
    /** Longest timeout accepted: 10 minutes. */
    public static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);

    private static final TimeoutOptions DEFAULTS = new TimeoutOptions(DEFAULT_CONNECT_TIMEOUT, DEFAULT_REQUEST_TIMEOUT);

    /**
     * @throws IllegalArgumentException unless both are positive and at most {@link #MAX_TIMEOUT}
     */
    public TimeoutOptions {
        check("connectTimeout", connectTimeout);
        check("requestTimeout", requestTimeout);
    }

    /** The defaults: {@link #DEFAULT_CONNECT_TIMEOUT}, {@link #DEFAULT_REQUEST_TIMEOUT}. */
    public static TimeoutOptions defaults() {
        return DEFAULTS;
    }

    /** Both timeouts set to {@code timeout}. */
    public static TimeoutOptions of(Duration timeout) {
        return new TimeoutOptions(timeout, timeout);
    }

    /** These timeouts with another connect timeout. */
    public TimeoutOptions withConnectTimeout(Duration connectTimeout) {
        return new TimeoutOptions(connectTimeout, requestTimeout);
    }

    /** These timeouts with another request timeout. */
    public TimeoutOptions withRequestTimeout(Duration requestTimeout) {
        return new TimeoutOptions(connectTimeout, requestTimeout);
    }

    private static void check(String name, Duration d) {
        Objects.requireNonNull(d, name + " must not be null");
        if (d.isZero() || d.isNegative() || d.compareTo(MAX_TIMEOUT) > 0) {
            throw new IllegalArgumentException(
                    name + " must be positive and at most " + MAX_TIMEOUT + " (was " + d + ")");
        }
    }
}
