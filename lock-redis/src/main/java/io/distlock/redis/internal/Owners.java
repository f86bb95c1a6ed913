package io.distlock.redis.internal;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Owner values: 128 bits from {@link SecureRandom}, as 32 hex digits, one per acquisition attempt.
 * Nothing in them derives from time, thread or host, so another client — even one with the same
 * credentials — cannot guess a holder's value to release, extend or steal its lock. Public for
 * lock-redlock, which stores the same kind of value on each of its masters.
 */
public final class Owners {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Owners() {}

    /** A new owner value. */
    public static String newOwner() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
