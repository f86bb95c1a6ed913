package io.distlock.memory;

import io.distlock.LockOptions;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Interleaved harness (not a test) for the engine's own cost per uncontended acquire+release: in
 * one JVM, blocks of 50 alternate between (a) {@code provider.lock(name).tryAcquire()} + {@code
 * release()} on a {@link MemoryLockProvider}, exactly as distlock-compare's uncontended scenario
 * calls it, and (b) the same two requests sent straight to the {@link MemoryLockServer} (no engine).
 * The difference is what the engine adds to every backend. Prints the p50 of each round, the
 * median over rounds, and the bytes allocated per operation by the calling thread.
 *
 * <p>Run from the repository root after {@code ./mvnw -q -pl lock-api test-compile}:
 *
 * <pre>{@code
 * java -cp lock-api/target/test-classes:lock-api/target/classes:$(slf4j-api jar) \
 *     io.distlock.memory.EngineOverheadBench [rounds] [warmup]
 * }</pre>
 *
 * With {@code warmup} 200 (distlock-compare's former default) the figures show the cost while the
 * JIT has not compiled the path yet.
 */
public final class EngineOverheadBench {
    private static final int BLOCK = 50;

    private EngineOverheadBench() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        int n = args.length > 2 ? Integer.parseInt(args[2]) : 4_000;
        MemoryLockServer server = MemoryLockServer.create();
        LockOptions options =
                LockOptions.builder().leaseTime(Duration.ofSeconds(3)).build();
        long ttl = options.leaseTime().toNanos();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (MemoryLockProvider provider =
                MemoryLockProvider.builder().server(server).options(options).build()) {
            String owner = "bench-owner";
            Map<String, Runnable> variants = new LinkedHashMap<>();
            variants.put(
                    "engine",
                    () -> provider.lock("bench-engine")
                            .tryAcquire()
                            .orElseThrow()
                            .release());
            variants.put("server", () -> {
                if (!server.tryAcquire("bench-server", owner, ttl).acquired()
                        || !server.release("bench-server", owner)) {
                    throw new IllegalStateException("raw server acquire+release failed");
                }
            });
            for (int i = 0; i < warmup; i++) {
                variants.values().forEach(Runnable::run);
            }
            Map<String, List<Double>> p50s = new LinkedHashMap<>();
            long engineBytes = 0;
            long engineOps = 0;
            for (int round = 0; round < rounds; round++) {
                Map<String, long[]> samples = new LinkedHashMap<>();
                variants.keySet().forEach(k -> samples.put(k, new long[n]));
                for (int from = 0; from < n; from += BLOCK) {
                    for (Map.Entry<String, Runnable> v : variants.entrySet()) {
                        long[] s = samples.get(v.getKey());
                        Runnable op = v.getValue();
                        long bytes = threads.getCurrentThreadAllocatedBytes();
                        for (int i = from; i < from + BLOCK; i++) {
                            long t0 = System.nanoTime();
                            op.run();
                            s[i] = System.nanoTime() - t0;
                        }
                        if (v.getKey().equals("engine")) {
                            engineBytes += threads.getCurrentThreadAllocatedBytes() - bytes;
                            engineOps += BLOCK;
                        }
                    }
                }
                StringBuilder line = new StringBuilder("round " + round + ":");
                for (Map.Entry<String, long[]> e : samples.entrySet()) {
                    double p = p50(e.getValue());
                    p50s.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(p);
                    line.append(String.format(Locale.ROOT, " %s=%.2fus", e.getKey(), p));
                }
                System.out.println(line);
            }
            double engine = median(p50s.get("engine"));
            double raw = median(p50s.get("server"));
            System.out.printf(
                    Locale.ROOT,
                    "median p50: engine=%.2fus server=%.2fus engine overhead=%.2fus; engine path allocates %d"
                            + " bytes/op (warmup %d)%n",
                    engine,
                    raw,
                    engine - raw,
                    engineBytes / Math.max(1, engineOps),
                    warmup);
        }
    }

    private static double p50(long[] nanos) {
        long[] c = nanos.clone();
        Arrays.sort(c);
        return c[c.length / 2] / 1_000.0;
    }

    private static double median(List<Double> v) {
        double[] c = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return c[c.length / 2];
    }
}
