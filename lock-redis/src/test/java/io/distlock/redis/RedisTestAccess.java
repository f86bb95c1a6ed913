package io.distlock.redis;

import io.distlock.LockProvider;
import io.distlock.redis.internal.RedisInternals;
import redis.clients.jedis.Jedis;

/** What the tests read from a provider, through {@code unwrap(RedisInternals.class)}. */
final class RedisTestAccess {
    private RedisTestAccess() {}

    static RedisInternals internals(LockProvider p) {
        return p.unwrap(RedisInternals.class).orElseThrow();
    }

    /** The Redis key that holds lock {@code name}. */
    static String lockKey(LockProvider p, String name) {
        return internals(p).keys().lockKey(name);
    }

    /** The Redis key that holds the fencing counter of lock {@code name}. */
    static String tokenKey(LockProvider p, String name) {
        return internals(p).keys().tokenKey(name);
    }

    /** Number of lock channels the provider's subscriber listens to. */
    static int subscribedChannels(LockProvider p) {
        return internals(p).subscribedChannels();
    }

    /** Script calls ({@code EVALSHA} and {@code EVAL}) the server behind {@code admin} has run ({@code INFO commandstats}). */
    static long scriptCalls(Jedis admin) {
        long n = 0;
        for (String line : admin.info("commandstats").split("\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                n += Long.parseLong(line.substring(line.indexOf(":calls=") + 7, line.indexOf(',')));
            }
        }
        return n;
    }
}
