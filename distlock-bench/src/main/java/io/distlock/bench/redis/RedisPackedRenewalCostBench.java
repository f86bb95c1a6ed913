package io.distlock.bench.redis;

import io.distlock.bench.BenchJson;
import io.distlock.redis.core.RedisKeys;
import io.distlock.redis.core.Scripts;
import io.distlock.testing.servers.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

/**
 * What one renewal tick of many locks costs the server, by how many locks go in one {@code
 * RENEW_PACKED} call: on a local redis-server it starts, N lock keys held by one owner are renewed
 * again and again, all of a tick's calls in one pipeline (as lock-redis sends them), with the calls
 * of each size in turn. Per tick, from the server's own statistics after {@code CONFIG RESETSTAT}:
 * the time the server spent running the calls ({@code INFO commandstats}, {@code EVALSHA}'s {@code
 * usec}: the scripts with their {@code redis.call}s, without reading the request), the longest single
 * call (that time over the calls: they do the same work each), its socket reads ({@code
 * total_reads_processed}); and the tick's round trip on the client. A call blocks every other client of
 * the server while it runs; between two calls of a pipeline the server may serve others once it has
 * read what it has. {@code SLOWLOG} is not used: on Redis 7 it also logs every command a script calls,
 * which costs the script time of its own.
 *
 * <p>Arguments: {@code [output file (default target/redis-packed-renewal-cost.json)] [locks (default
 * 10000)] [ticks per size (default 20)] [locks per call, comma-separated (default
 * 10000,5000,2000,1000,100)]}, e.g. {@code ./distlock bench RedisPackedRenewalCostBench
 * /tmp/packed.json 10000 20}.
 */
public final class RedisPackedRenewalCostBench {
    private static final String OWNER = "0123456789abcdef0123456789abcdef";
    private static final long LEASE_MS = 30_000;

    private RedisPackedRenewalCostBench() {}

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "target/redis-packed-renewal-cost.json");
        int locks = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        int ticks = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        int[] sizes = Arrays.stream((args.length > 3 ? args[3] : "10000,5000,2000,1000,100").split(","))
                .mapToInt(Integer::parseInt)
                .toArray();
        RedisKeys keys = new RedisKeys("bench");
        List<String> lines = new ArrayList<>(locks);
        Map<String, Object> result = new LinkedHashMap<>();
        try (RedisServer server = RedisServer.start();
                Jedis admin = new Jedis(server.host(), server.port());
                Jedis client = new Jedis(server.host(), server.port())) {
            String sha = admin.scriptLoad(Scripts.RENEW_PACKED.text());
            Pipeline setup = admin.pipelined();
            for (int i = 0; i < locks; i++) {
                String tag = RedisKeys.tag("held-" + i);
                setup.psetex(keys.lockKeyHead() + tag + RedisKeys.LOCK_KEY_TAIL, LEASE_MS * 4, OWNER);
                lines.add(tag + " " + OWNER + " " + LEASE_MS + "\n");
            }
            setup.sync();
            result.put(
                    "server",
                    admin.info("server")
                            .lines()
                            .filter(l -> l.startsWith("redis_version:"))
                            .findFirst()
                            .orElse("")
                            .substring("redis_version:".length())
                            .trim());
            result.put("locks", locks);
            result.put("ticks_per_size", ticks);
            List<Object> rows = new ArrayList<>();
            for (int size : sizes) {
                List<List<String>> calls = new ArrayList<>();
                for (int from = 0; from < locks; from += size) {
                    calls.add(List.of(
                            keys.lockKeyHead(),
                            RedisKeys.LOCK_KEY_TAIL,
                            String.join("", lines.subList(from, Math.min(locks, from + size)))));
                }
                for (int i = 0; i < 3; i++) {
                    tick(admin, client, sha, calls); // warm-up
                }
                double[] serverUs = new double[ticks];
                double[] reads = new double[ticks];
                double[] roundTripUs = new double[ticks];
                for (int i = 0; i < ticks; i++) {
                    double[] t = tick(admin, client, sha, calls);
                    serverUs[i] = t[0];
                    reads[i] = t[1];
                    roundTripUs[i] = t[2];
                }
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("locks_per_call", size);
                row.put("calls_per_tick", calls.size());
                row.put("server_us_per_tick_p50", median(serverUs));
                row.put("server_us_per_call_p50", median(serverUs) / calls.size());
                row.put("server_us_per_lock_p50", median(serverUs) / locks);
                row.put("reads_per_tick_p50", median(reads));
                row.put("round_trip_us_p50", median(roundTripUs));
                rows.add(row);
                System.out.printf(
                        Locale.ROOT,
                        "%,d locks in calls of %,d: server %,.0f µs per tick (%,.0f µs per call, %.2f µs per lock),"
                                + " %.0f socket reads, round trip %,.0f µs%n",
                        locks,
                        size,
                        median(serverUs),
                        median(serverUs) / calls.size(),
                        median(serverUs) / locks,
                        median(reads),
                        median(roundTripUs));
            }
            result.put("sizes", rows);
        }
        result.put(
                "load_average_after",
                java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                        .getSystemLoadAverage());
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        Files.writeString(out, BenchJson.toJson(result) + "\n");
        System.out.println("results: " + out);
    }

    /** One tick: every call in one pipeline; the server's µs running them, its socket reads, the round trip µs. */
    private static double[] tick(Jedis admin, Jedis client, String sha, List<List<String>> calls) {
        admin.configResetStat();
        Pipeline p = client.pipelined();
        List<Response<Object>> replies = new ArrayList<>(calls.size());
        long t0 = System.nanoTime();
        for (List<String> args : calls) {
            replies.add(p.evalsha(sha, List.of(), args));
        }
        p.sync();
        long roundTrip = System.nanoTime() - t0;
        for (Response<Object> r : replies) {
            String answers = r.get().toString();
            if (answers.indexOf('0') >= 0) {
                throw new IllegalStateException("a lock was not renewed: " + answers.length() + " answers");
            }
        }
        Map<String, String> stats = stats(admin.info("commandstats"));
        String evalsha = stats.get("cmdstat_evalsha");
        long usec = Long.parseLong(field(evalsha, "usec"));
        long callsRun = Long.parseLong(field(evalsha, "calls"));
        if (callsRun != calls.size()) {
            throw new IllegalStateException("the server ran " + callsRun + " calls, not " + calls.size());
        }
        // less the two INFO requests of the admin connection since the reset
        long reads = Long.parseLong(stats(admin.info("stats")).get("total_reads_processed")) - 2;
        return new double[] {usec, reads, roundTrip / 1e3};
    }

    private static Map<String, String> stats(String info) {
        Map<String, String> m = new LinkedHashMap<>();
        info.lines().filter(l -> l.contains(":")).forEach(l -> {
            int c = l.indexOf(':');
            m.put(l.substring(0, c), l.substring(c + 1).trim());
        });
        return m;
    }

    private static String field(String stat, String name) {
        for (String kv : stat.split(",")) {
            if (kv.startsWith(name + "=")) {
                return kv.substring(name.length() + 1);
            }
        }
        throw new IllegalStateException("no " + name + " in " + stat);
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
