package io.distlock.redis.core;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Owner values: 128 bits from {@link SecureRandom}, as 32 hex digits, one per acquisition attempt.
 * Nothing in them derives from time, thread or host, so another client — even one with the same
 * credentials — cannot guess a holder's value to release, extend or steal its lock. lock-redis and
 * lock-redlock store them as the value of a lock key.
 *
 * <p>The bytes are fetched from the {@code SecureRandom} 64 values at a time and each byte is
 * handed out once: the values are exactly as random as one {@code nextBytes} call per value, but the
 * fixed cost of a call (a lock, a read from the OS generator, the mixing) is paid once per 64
 * acquisitions instead of once per acquisition.
 */
public final class Owners {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int BYTES = 16;
    /** Values fetched per {@code SecureRandom} call. */
    static final int BATCH = 64;

    private static final HexFormat HEX = HexFormat.of();
    private static final byte[] pool = new byte[BYTES * BATCH];
    private static int next = pool.length; // guarded by Owners.class

    private Owners() {}

    /** A new owner value. */
    public static String newOwner() {
        synchronized (Owners.class) {
            if (next == pool.length) {
                RANDOM.nextBytes(pool);
                next = 0;
            }
            String v = HEX.formatHex(pool, next, next + BYTES);
            next += BYTES;
            return v;
        }
    }
}
