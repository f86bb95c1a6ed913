package io.distlock.bench.postgresql;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.bench.BenchJson;
import io.distlock.postgresql.PostgresLockOptions;
import io.distlock.postgresql.PostgresLockProvider;
import io.distlock.testing.servers.PgBouncer;
import io.distlock.testing.servers.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What PgBouncer and the driver's {@code prepareThreshold} cost an uncontended acquire + release of
 * lock-postgresql, next to the raw round trip ({@code SELECT 1}) on the same path: direct with the
 * driver's default threshold ({@code direct}), direct with {@code prepareThreshold=0} ({@code
 * direct_p0}), and through PgBouncer in transaction pool mode with {@code prepareThreshold=0} ({@code
 * bouncer_p0}), the three interleaved in rounds on one machine, one client thread, one lock name.
 * Read the results as ratios within one run.
 *
 * <p>Arguments: {@code [--rounds N]} (default 5), {@code [--ops N]} acquire + release per variant and
 * round (default 2000), {@code [--out FILE]} (default {@code target/benchmarks/postgres-pgbouncer.json}).
 * Run with {@code ./distlock bench PostgresPgBouncerBench [args]}.
 */
public final class PostgresPgBouncerBench {
    private static final String[] VARIANTS = {"direct", "direct_p0", "bouncer_p0"};

    private PostgresPgBouncerBench() {}

    public static void main(String[] args) throws Exception {
        int rounds = 5;
        int ops = 2000;
        Path out = Path.of("target", "benchmarks", "postgres-pgbouncer.json");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--ops" -> ops = Integer.parseInt(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                default ->
                    throw new IllegalArgumentException(
                            "unknown argument " + args[i] + " (usage: [--rounds N] [--ops N] [--out FILE])");
            }
        }
        Map<String, List<Long>> lock = new LinkedHashMap<>();
        Map<String, List<Long>> select1 = new LinkedHashMap<>();
        try (PostgresServer pg = PostgresServer.start();
                PgBouncer bouncer = PgBouncer.builder(pg).start()) {
            Map<String, String> urls = Map.of(
                    "direct", pg.jdbcUrl(),
                    "direct_p0", pg.jdbcUrl() + "?prepareThreshold=0",
                    "bouncer_p0", bouncer.jdbcUrl());
            provider(pg, pg.jdbcUrl(), true).close(); // creates the table and the sequence
            for (int r = 0; r < rounds; r++) {
                for (String v : VARIANTS) {
                    lock.computeIfAbsent(v, k -> new ArrayList<>()).addAll(acquireRelease(pg, urls.get(v), ops));
                    select1.computeIfAbsent(v, k -> new ArrayList<>()).addAll(select1(pg, urls.get(v), ops));
                }
                System.err.println("round " + (r + 1) + " of " + rounds + " done");
            }
        }
        Map<String, Object> variants = new LinkedHashMap<>();
        for (String v : VARIANTS) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("acquire_release", stats(lock.get(v)));
            m.put("select1", stats(select1.get(v)));
            m.put("acquire_release_over_select1", p50(lock.get(v)) / p50(select1.get(v)));
            variants.put(v, m);
        }
        Map<String, Object> ratios = new LinkedHashMap<>();
        ratios.put("direct_p0_over_direct", p50(lock.get("direct_p0")) / p50(lock.get("direct")));
        ratios.put("bouncer_p0_over_direct", p50(lock.get("bouncer_p0")) / p50(lock.get("direct")));
        ratios.put("bouncer_p0_over_direct_p0", p50(lock.get("bouncer_p0")) / p50(lock.get("direct_p0")));
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("bench", "PostgresPgBouncerBench");
        result.put("rounds", rounds);
        result.put("ops_per_round", ops);
        result.put("cores", Runtime.getRuntime().availableProcessors());
        result.put("variants", variants);
        result.put("p50_ratios", ratios);
        String json = BenchJson.toJson(result);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, json + "\n");
        System.out.println(json);
        System.out.println("wrote " + out);
    }

    private static PostgresLockProvider provider(PostgresServer pg, String url, boolean createSchema) {
        return PostgresLockProvider.builder()
                .jdbcUrl(url)
                .options(PostgresLockOptions.builder()
                        .credentials(Credentials.of(pg.user(), pg.password()))
                        .createSchema(createSchema)
                        .poolSize(2)
                        .build())
                .leaseTime(Duration.ofSeconds(30))
                .build();
    }

    /** {@code ops} uncontended acquire + release on a fresh provider, after as many untimed. */
    private static List<Long> acquireRelease(PostgresServer pg, String url, int ops) {
        try (PostgresLockProvider p = provider(pg, url, false)) {
            List<Long> nanos = new ArrayList<>(ops);
            for (int i = 0; i < 2 * ops; i++) {
                long t = System.nanoTime();
                Lease l = p.lock("bench").tryAcquire().orElseThrow();
                l.release();
                if (i >= ops) {
                    nanos.add(System.nanoTime() - t);
                }
            }
            return nanos;
        }
    }

    /** {@code ops} {@code SELECT 1} on one connection, after as many untimed. */
    private static List<Long> select1(PostgresServer pg, String url, int ops) throws Exception {
        try (Connection c = DriverManager.getConnection(url, pg.user(), pg.password());
                PreparedStatement s = c.prepareStatement("SELECT 1")) {
            List<Long> nanos = new ArrayList<>(ops);
            for (int i = 0; i < 2 * ops; i++) {
                long t = System.nanoTime();
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                }
                if (i >= ops) {
                    nanos.add(System.nanoTime() - t);
                }
            }
            return nanos;
        }
    }

    private static Map<String, Object> stats(List<Long> nanos) {
        long[] v = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("count", v.length);
        m.put("p50_us", pct(v, 0.5));
        m.put("p90_us", pct(v, 0.9));
        m.put("p99_us", pct(v, 0.99));
        return m;
    }

    private static double p50(List<Long> nanos) {
        long[] v = nanos.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(v);
        return pct(v, 0.5);
    }

    private static double pct(long[] sorted, double p) {
        return sorted.length == 0 ? Double.NaN : sorted[(int) Math.min(sorted.length - 1, p * sorted.length)] / 1000.0;
    }
}
