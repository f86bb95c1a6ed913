package io.distlock.bench.redlock;

import io.distlock.LockOptions;
import io.distlock.bench.BenchJson;
import io.distlock.bench.RenewalWindow;
import io.distlock.redlock.RedlockLockOptions;
import io.distlock.redlock.RedlockLockProvider;
import io.distlock.redlock.internal.RedlockInternals;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renewal traffic of one lock-redlock provider against the number of locks it holds: for each count
 * (default 1, 100 and 10,000) it acquires that many locks on three local redis-server masters it
 * starts, lets them come into step (three renewal intervals), then counts for a window: the renewal
 * round trips (pipelines the batched renewal sent, summed over the nodes: one per node per renewal
 * tick; a single due lock takes its own round and is not counted), the script calls the nodes ran
 * ({@code INFO commandstats} summed: {@code RENEW_PACKED} for up to 10,000 locks each, or {@code RENEW}
 * per lock for a single due lock) and the lock renewals (the observer's {@code renewed} calls), each
 * per second, and the round trips' ratio to the figure with 100 locks. Nothing else runs on the
 * provider during the window. Writes the results as JSON.
 *
 * <p>Arguments: {@code [output file (default target/redlock-renewal-bench.json)] [lease ms (default
 * 3000: renewed every second)] [window s (default 15)] [counts, comma-separated (default
 * 1,100,10000)]}, e.g. {@code ./distlock bench RedlockRenewalBench /tmp/renewal.json 3000 15
 * 1,100,10000}.
 */
public final class RedlockRenewalBench {
    private static final int NODES = 3;

    private RedlockRenewalBench() {}

    public static void main(String[] args) throws Exception {
        RenewalWindow.Settings settings = RenewalWindow.Settings.parse(args, "target/redlock-renewal-bench.json");
        Path out = settings.out();
        Duration lease = settings.lease();
        Duration window = settings.window();
        List<Integer> counts = settings.counts();
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("nodes", NODES);
        settings.describe(result);
        List<Object> rows = new ArrayList<>();
        double hundredRoundTrips = Double.NaN;
        try (RedisServers servers = RedisServers.independentMasters(NODES)) {
            for (int n : counts) {
                Map<String, Object> row = measure(servers, n, lease, window);
                double roundTrips = (double) row.get("round_trips_per_s");
                if (n == 100) {
                    hundredRoundTrips = roundTrips;
                }
                if (!Double.isNaN(hundredRoundTrips) && n >= 100) {
                    row.put("round_trips_vs_100_locks", RenewalWindow.round(roundTrips / hundredRoundTrips));
                }
                rows.add(row);
                System.out.println(BenchJson.toJson(row));
            }
        }
        result.put("runs", rows);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, BenchJson.toJson(result) + "\n");
        System.out.println(BenchJson.toJson(result));
    }

    private static Map<String, Object> measure(RedisServers servers, int n, Duration lease, Duration window)
            throws InterruptedException {
        RenewalWindow run = new RenewalWindow();
        List<String> addresses =
                servers.servers().stream().map(s -> s.host() + ":" + s.port()).toList();
        try (RedlockLockProvider p = RedlockLockProvider.builder()
                .nodes(addresses)
                .options(RedlockLockOptions.defaults())
                .lockOptions(LockOptions.builder()
                        .leaseTime(lease)
                        .observer(run.observer())
                        .build())
                .build()) {
            RedlockInternals internals = p.unwrap(RedlockInternals.class).orElseThrow();
            return run.measure(p, internals::renewalPipelines, () -> scriptCalls(servers), n, lease, window);
        }
    }

    /** {@code EVALSHA} and {@code EVAL} calls the nodes served so far, summed. */
    private static long scriptCalls(RedisServers servers) {
        long calls = 0;
        for (RedisServer s : servers.servers()) {
            try {
                calls += RenewalWindow.scriptCalls(s.call("INFO", "commandstats"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return calls;
    }
}
