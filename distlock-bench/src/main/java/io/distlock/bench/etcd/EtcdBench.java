package io.distlock.bench.etcd;

import io.distlock.Lease;
import io.distlock.etcd.EtcdLockProvider;
import io.distlock.testing.servers.EtcdServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * lock-etcd against jetcd's own {@code Lock} (the server-side lock RPC on a lease) on one etcd member
 * that this benchmark starts ({@code --unsafe-no-fsync}, through lock-testing's {@link EtcdServer}).
 * It measures, in this order:
 *
 * <ol>
 *   <li>requests per uncontended acquire and per release (gRPC messages the server received: {@code
 *       Txn}, {@code DeleteRange});
 *   <li>p50 latencies, interleaved sample by sample so that the machine's load hits all alike: a raw
 *       {@code get} (the floor), our acquire, our release, our acquire+release, jetcd's lock+unlock;
 *   <li>contended throughput: K clients (each its own provider, or its own jetcd client and lease) on
 *       one lock for S seconds, acquisitions per second;
 *   <li>keepalive traffic of one provider holding 1 and then 100 locks with a 1.5 s lease (expected:
 *       the same rate whatever the number of locks).
 * </ol>
 *
 * <p>Arguments (all optional): {@code --samples N} interleaved latency samples (default 200), {@code
 * --clients K} contending clients (default 8), {@code --seconds S} length of each contended run (default
 * 3), {@code --out FILE} the JSON results (default {@code target/etcd-bench.json}). The JSON also holds
 * {@code checks}: one transaction per acquire, one delete per release, ours faster than jetcd's {@code
 * Lock} under contention.
 *
 * <pre>
 * ./distlock bench EtcdBench --samples 100 --seconds 1
 * </pre>
 */
public final class EtcdBench {
    private static final int WARM_UP = 20;

    private final EtcdServer server;
    private final int samples;
    private final int clients;
    private final Duration contended;

    private EtcdBench(EtcdServer server, int samples, int clients, Duration contended) {
        this.server = server;
        this.samples = samples;
        this.clients = clients;
        this.contended = contended;
    }

    public static void main(String[] args) throws Exception {
        int samples = 200;
        int clients = 8;
        int seconds = 3;
        Path out = Path.of("target", "etcd-bench.json");
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--samples" -> samples = positive("--samples", value);
                case "--clients" -> clients = positive("--clients", value);
                case "--seconds" -> seconds = positive("--seconds", value);
                case "--out" -> out = Path.of(required("--out", value));
                default ->
                    throw new IllegalArgumentException("unknown argument " + args[i]
                            + " (accepted: --samples N, --clients K, --seconds S, --out FILE)");
            }
            i++;
        }
        Map<String, Object> results;
        try (EtcdServer server = EtcdServer.start()) {
            results = new EtcdBench(server, samples, clients, Duration.ofSeconds(seconds)).run();
        }
        String json = json(results);
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        Files.writeString(out, json);
        System.out.println(json);
        System.out.println("results: " + out.toAbsolutePath());
    }

    private static String required(String name, String value) {
        if (value == null) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        return value;
    }

    private static int positive(String name, String value) {
        int n;
        try {
            n = Integer.parseInt(required(name, value));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a positive integer (was '" + value + "')");
        }
        if (n <= 0) {
            throw new IllegalArgumentException(name + " must be a positive integer (was " + n + ")");
        }
        return n;
    }

    private EtcdLockProvider ours(Duration leaseTime) {
        return EtcdLockProvider.builder()
                .endpoints(server.endpoint())
                .leaseTime(leaseTime)
                .build();
    }

    private Map<String, Object> run() throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("server", "etcd " + server.address() + " (--unsafe-no-fsync)");
        out.put("samples", samples);
        List<Client> jetcd = new ArrayList<>();
        List<Long> jetcdLeases = new ArrayList<>();
        List<EtcdLockProvider> mine = new ArrayList<>();
        try {
            for (int c = 0; c < clients; c++) {
                Client cl = Client.builder().endpoints(server.endpoint()).build();
                jetcd.add(cl);
                jetcdLeases.add(
                        cl.getLeaseClient().grant(60).get(5, TimeUnit.SECONDS).getID());
                mine.add(ours(Duration.ofSeconds(10)));
            }
            uncontended(out, jetcd.get(0), jetcdLeases.get(0), mine.get(0));
            out.put("contendedClients", clients);
            out.put("contendedSeconds", contended.toSeconds());
            out.put("oursContendedPerSecond", throughput(c -> () -> {
                try (Lease l = mine.get(c).lock("bench-c").acquire()) {
                    // empty critical section
                }
            }));
            ByteSequence name = bytes("bench-jetcd-c");
            out.put("jetcdLockContendedPerSecond", throughput(c -> () -> {
                var r = jetcd.get(c)
                        .getLockClient()
                        .lock(name, jetcdLeases.get(c))
                        .get(30, TimeUnit.SECONDS);
                jetcd.get(c).getLockClient().unlock(r.getKey()).get(5, TimeUnit.SECONDS);
            }));
        } finally {
            for (EtcdLockProvider m : mine) {
                m.close();
            }
            for (Client c : jetcd) {
                c.close();
            }
        }
        for (int held : new int[] {1, 100}) {
            out.put("keepalivesPerSecondHolding" + held, keepalivesPerSecond(held));
        }
        Map<String, Object> checks = new LinkedHashMap<>();
        checks.put("oneTxnPerAcquire", (double) out.get("oursTxnPerAcquire") == 1.0);
        checks.put("oneDeletePerRelease", (double) out.get("oursDeletePerRelease") == 1.0);
        checks.put(
                "oursFasterContended",
                (double) out.get("oursContendedPerSecond") > (double) out.get("jetcdLockContendedPerSecond"));
        out.put("checks", checks);
        return out;
    }

    private void uncontended(Map<String, Object> out, Client raw, long lease, EtcdLockProvider p) throws Exception {
        ByteSequence key = bytes("/bench/raw");
        ByteSequence name = bytes("bench-jetcd-u");
        Op rawOp = () -> raw.getKVClient().get(key).get(5, TimeUnit.SECONDS);
        Op jetcdOp = () -> {
            var r = raw.getLockClient().lock(name, lease).get(5, TimeUnit.SECONDS);
            raw.getLockClient().unlock(r.getKey()).get(5, TimeUnit.SECONDS);
        };
        for (int i = 0; i < WARM_UP; i++) {
            rawOp.run();
            jetcdOp.run();
            p.lock("bench-u").tryAcquire().orElseThrow().release();
        }
        long txn0 = received("Txn");
        long del0 = received("DeleteRange");
        p.lock("bench-u").tryAcquire().orElseThrow().release();
        out.put("oursTxnPerAcquire", (double) (received("Txn") - txn0));
        out.put("oursDeletePerRelease", (double) (received("DeleteRange") - del0));
        long[] tr = new long[samples];
        long[] ta = new long[samples];
        long[] tl = new long[samples];
        long[] tar = new long[samples];
        long[] tj = new long[samples];
        for (int i = 0; i < samples; i++) {
            long t0 = System.nanoTime();
            rawOp.run();
            long t1 = System.nanoTime();
            Lease l = p.lock("bench-u").tryAcquire().orElseThrow();
            long t2 = System.nanoTime();
            l.release();
            long t3 = System.nanoTime();
            jetcdOp.run();
            long t4 = System.nanoTime();
            tr[i] = t1 - t0;
            ta[i] = t2 - t1;
            tl[i] = t3 - t2;
            tar[i] = t3 - t1;
            tj[i] = t4 - t3;
        }
        out.put("rawGetP50Micros", p50Micros(tr));
        out.put("oursAcquireP50Micros", p50Micros(ta));
        out.put("oursReleaseP50Micros", p50Micros(tl));
        out.put("oursAcquireReleaseP50Micros", p50Micros(tar));
        out.put("jetcdLockUnlockP50Micros", p50Micros(tj));
    }

    /** Keepalives per second the server receives while one provider (1.5 s lease) holds {@code held} locks. */
    private double keepalivesPerSecond(int held) throws Exception {
        try (EtcdLockProvider p = ours(Duration.ofMillis(1500))) {
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < held; i++) {
                leases.add(p.lock("bench-held-" + i).tryAcquire().orElseThrow());
            }
            long before = received("LeaseKeepAlive");
            long t0 = System.nanoTime();
            Thread.sleep(3_000); // the measuring window
            double seconds = (System.nanoTime() - t0) / 1e9;
            double rate = (received("LeaseKeepAlive") - before) / seconds;
            for (Lease l : leases) {
                l.release();
            }
            return rate;
        }
    }

    /** A lock operation of one client. */
    private interface Op {
        void run() throws Exception;
    }

    private double throughput(IntFunction<Op> perClient) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients, r -> {
            Thread t = new Thread(r, "etcd-bench-client");
            t.setDaemon(true);
            return t;
        });
        AtomicLong count = new AtomicLong();
        long end = System.nanoTime() + contended.toNanos();
        try {
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                Op op = perClient.apply(c);
                fs.add(CompletableFuture.runAsync(
                        () -> {
                            try {
                                while (System.nanoTime() - end < 0) {
                                    op.run();
                                    count.incrementAndGet();
                                }
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        },
                        pool));
            }
            CompletableFuture.allOf(fs.toArray(new CompletableFuture[0]))
                    .get(contended.toSeconds() + 60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        return count.get() / (contended.toNanos() / 1e9);
    }

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /** gRPC messages of {@code method} the server received so far (its Prometheus metrics). */
    private long received(String method) throws IOException, InterruptedException {
        String metrics = HTTP.send(
                        HttpRequest.newBuilder(URI.create(server.endpoint() + "/metrics"))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        Matcher m = Pattern.compile(
                        "^grpc_server_msg_received_total\\{[^}]*grpc_method=\"" + method + "\"[^}]*} ([0-9.e+]+)$",
                        Pattern.MULTILINE)
                .matcher(metrics);
        long n = 0;
        while (m.find()) {
            n += (long) Double.parseDouble(m.group(1));
        }
        return n;
    }

    private static double p50Micros(long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return s[s.length / 2] / 1000.0;
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    private static String json(Map<String, Object> values) {
        StringBuilder sb = new StringBuilder("{");
        int i = 0;
        for (Map.Entry<String, Object> e : values.entrySet()) {
            sb.append(i++ == 0 ? "" : ",").append("\n  \"").append(e.getKey()).append("\": ");
            Object v = e.getValue();
            if (v instanceof Map<?, ?> m) {
                @SuppressWarnings("unchecked")
                Map<String, Object> nested = (Map<String, Object>) m;
                sb.append(json(nested).replace("\n", "\n  "));
            } else if (v instanceof Double d) {
                sb.append(String.format(Locale.ROOT, "%.1f", d));
            } else if (v instanceof String str) {
                sb.append('"')
                        .append(str.replace("\\", "\\\\").replace("\"", "\\\""))
                        .append('"');
            } else {
                sb.append(v);
            }
        }
        return sb.append("\n}").toString();
    }
}
