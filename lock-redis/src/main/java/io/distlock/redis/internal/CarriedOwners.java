package io.distlock.redis.internal;

import io.distlock.spi.AcquireContext;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Owner values of waiting attempts whose contender the engine replaced after a failure (same {@link
 * AcquireContext}, weakly held): the next contender of the attempt keeps the value, so a queue entry
 * it may have left (also on a replica that is promoted meanwhile) is still its own.
 */
final class CarriedOwners {
    private final Map<AcquireContext, String> owners = Collections.synchronizedMap(new WeakHashMap<>());
    /** Whether any value was ever carried (the common case looks no further). */
    private volatile boolean any;

    /** Keeps {@code owner} for the next contender of {@code ctx}. */
    void carry(AcquireContext ctx, String owner) {
        owners.put(ctx, owner);
        any = true;
    }

    /** The owner value carried for {@code ctx}, removed; null if none. */
    String take(AcquireContext ctx) {
        return any ? owners.remove(ctx) : null;
    }
}
