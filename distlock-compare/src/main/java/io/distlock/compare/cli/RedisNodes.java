package io.distlock.compare.cli;

import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/** Plain Jedis connections to a Redis node of a {@link ServerAddress}, and removing a run's keys. */
final class RedisNodes {
    private RedisNodes() {}

    /** A connection to node {@code i} of {@code a}, logged in and on its database. */
    static Jedis connect(ServerAddress a, int i) {
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .user(a.user())
                .password(a.password())
                .database(database(a))
                .protocol(RedisProtocol.RESP2)
                .clientName("distlock-compare");
        return new Jedis(a.host(i), a.port(i), config.build());
    }

    /** The database number of the address's path (0 without one). */
    static int database(ServerAddress a) {
        try {
            return a.path().isEmpty() ? 0 : Integer.parseInt(a.path());
        } catch (NumberFormatException e) {
            throw new CompareOptions.UsageException(
                    "--" + a.backend() + ": the path must be a database number (was '/" + a.path() + "')");
        }
    }

    /** {@code /db} for a provider URI, or empty. */
    static String databasePath(ServerAddress a) {
        return a.path().isEmpty() ? "" : "/" + a.path();
    }

    /**
     * Deletes every key matching {@code prefix:*} ({@code SCAN} + {@code UNLINK}), then scans again.
     *
     * @return {removed, left}
     */
    static long[] removeKeys(Jedis jedis, String prefix) {
        String pattern = prefix + ":*";
        long removed = 0;
        String cursor = ScanParams.SCAN_POINTER_START;
        ScanParams params = new ScanParams().match(pattern).count(1000);
        do {
            ScanResult<String> page = jedis.scan(cursor, params);
            List<String> keys = page.getResult();
            if (!keys.isEmpty()) {
                removed += jedis.unlink(keys.toArray(new String[0]));
            }
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return new long[] {removed, count(jedis, pattern)};
    }

    /** How many keys match {@code pattern}. */
    static long count(Jedis jedis, String pattern) {
        long n = 0;
        String cursor = ScanParams.SCAN_POINTER_START;
        ScanParams params = new ScanParams().match(pattern).count(1000);
        do {
            ScanResult<String> page = jedis.scan(cursor, params);
            n += page.getResult().size();
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return n;
    }

    /** Closes every connection in {@code all}, ignoring failures. */
    static void closeAll(List<Jedis> all) {
        for (Jedis j : new ArrayList<>(all)) {
            try {
                j.close();
            } catch (RuntimeException ignored) {
                // closing anyway
            }
        }
    }
}
