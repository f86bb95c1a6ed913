package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A short side-by-side measurement on one server, written to {@code
 * target/etcd-bench.json}: raw round trip (a get), our acquire+release, jetcd's Lock
 * (server-side lock RPC on a lease), contended throughput, keepalive traffic against held locks.
 * Not a timed test: the only assertions compare us with jetcd's Lock measured in the same run.
 */
class EtcdBenchIT {
    private static final int N = 200;
    private static final Duration CONTENDED = Duration.ofSeconds(3);
    private static EtcdTestServer server;

    @BeforeAll
    static void start() {
        server = EtcdTestServer.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static EtcdLockProvider ours(Duration leaseTime) {
        return EtcdLockProvider.builder()
                .etcdOptions(
                        EtcdLockOptions.builder().endpoints(server.endpoint()).build())
                .options(LockOptions.defaults().mutate().leaseTime(leaseTime).build())
                .build();
    }

    private static double p50Micros(long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return s[s.length / 2] / 1000.0;
    }

    private static long received(String method) {
        Pattern p = Pattern.compile(
                "^grpc_server_msg_received_total\\{[^}]*grpc_method=\"" + method + "\"[^}]*} ([0-9.e+]+)$",
                Pattern.MULTILINE);
        Matcher m = p.matcher(server.metrics());
        long n = 0;
        while (m.find()) {
            n += (long) Double.parseDouble(m.group(1));
        }
        return n;
    }

    interface Op {
        void run() throws Exception;
    }

    private static long[] time(int n, Op op) throws Exception {
        for (int i = 0; i < 20; i++) {
            op.run(); // warm-up
        }
        long[] t = new long[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            op.run();
            t[i] = System.nanoTime() - t0;
        }
        return t;
    }

    private static double throughput(int clients, java.util.function.IntFunction<Op> perClient) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        AtomicLong count = new AtomicLong();
        long end = System.nanoTime() + CONTENDED.toNanos();
        try {
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                Op op = perClient.apply(c);
                fs.add(CompletableFuture.runAsync(
                        () -> {
                            try {
                                while (System.nanoTime() < end) {
                                    op.run();
                                    count.incrementAndGet();
                                }
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        },
                        pool));
            }
            CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        return count.get() / (CONTENDED.toNanos() / 1e9);
    }

    @Test
    void sideBySide_writesJson() throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        ByteSequence k = EtcdDriverTestKeys.bytes("/bench/raw");
        int clients = 8;
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
            Client raw = jetcd.get(0);
            EtcdLockProvider p = mine.get(0);
            long lease0 = jetcdLeases.get(0);
            ByteSequence name = EtcdDriverTestKeys.bytes("bench-jetcd-u");
            Op rawOp = () -> raw.getKVClient().get(k).get(5, TimeUnit.SECONDS);
            Op jetcdOp = () -> {
                var r = raw.getLockClient().lock(name, lease0).get(5, TimeUnit.SECONDS);
                raw.getLockClient().unlock(r.getKey()).get(5, TimeUnit.SECONDS);
            };
            for (int i = 0; i < 20; i++) { // warm-up
                rawOp.run();
                jetcdOp.run();
                p.lock("bench-u").tryAcquire().orElseThrow().release();
            }
            long txn0 = received("Txn");
            long del0 = received("DeleteRange");
            p.lock("bench-u").tryAcquire().orElseThrow().release();
            out.put("oursTxnPerAcquire", (double) (received("Txn") - txn0));
            out.put("oursDeletePerRelease", (double) (received("DeleteRange") - del0));
            // interleaved, so that the (shared, noisy) machine's load hits all three alike
            long[] tr = new long[N];
            long[] ta = new long[N];
            long[] tl = new long[N];
            long[] tj = new long[N];
            for (int i = 0; i < N; i++) {
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
                tj[i] = t4 - t3;
            }
            long[] tar = new long[N];
            for (int i = 0; i < N; i++) {
                tar[i] = ta[i] + tl[i];
            }
            out.put("rawGetP50Micros", p50Micros(tr));
            out.put("oursAcquireP50Micros", p50Micros(ta));
            out.put("oursReleaseP50Micros", p50Micros(tl));
            out.put("oursAcquireReleaseP50Micros", p50Micros(tar));
            out.put("jetcdLockUnlockP50Micros", p50Micros(tj));
            double oursContended = throughput(clients, c -> () -> {
                try (Lease l = mine.get(c).lock("bench-c").acquire()) {
                    // empty critical section
                }
            });
            ByteSequence cname = EtcdDriverTestKeys.bytes("bench-jetcd-c");
            double jetcdContended = throughput(clients, c -> () -> {
                var r = jetcd.get(c)
                        .getLockClient()
                        .lock(cname, jetcdLeases.get(c))
                        .get(30, TimeUnit.SECONDS);
                jetcd.get(c).getLockClient().unlock(r.getKey()).get(5, TimeUnit.SECONDS);
            });
            out.put("contendedClients", clients);
            out.put("oursContendedPerSecond", oursContended);
            out.put("jetcdLockContendedPerSecond", jetcdContended);
        } finally {
            for (EtcdLockProvider m : mine) {
                m.close();
            }
            for (Client c : jetcd) {
                c.close();
            }
        }
        // keepalive traffic, alone on the server: 1 vs 100 held locks, leaseTime 1.5 s (expect 2/s)
        for (int held : new int[] {1, 100}) {
            try (EtcdLockProvider k2 = ours(Duration.ofMillis(1500))) {
                List<Lease> ls = new ArrayList<>();
                for (int i = 0; i < held; i++) {
                    ls.add(k2.lock("bench-held-" + i).tryAcquire().orElseThrow());
                }
                long ka0 = received("LeaseKeepAlive");
                long t0 = System.nanoTime();
                org.awaitility.Awaitility.await()
                        .pollDelay(Duration.ofSeconds(3))
                        .atMost(Duration.ofSeconds(4))
                        .until(() -> true);
                double secs = (System.nanoTime() - t0) / 1e9;
                out.put("keepalivesPerSecondHolding" + held, (received("LeaseKeepAlive") - ka0) / secs);
                for (Lease l : ls) {
                    l.release();
                }
            }
        }
        StringBuilder json = new StringBuilder("{\n");
        int i = 0;
        for (var e : out.entrySet()) {
            Object v = e.getValue();
            String val = v instanceof Double d ? String.format(java.util.Locale.ROOT, "%.1f", d) : v.toString();
            json.append("  \"").append(e.getKey()).append("\": ").append(val);
            json.append(++i < out.size() ? ",\n" : "\n");
        }
        json.append("}\n");
        Path file = Path.of("target", "etcd-bench.json");
        Files.writeString(file, json);
        System.out.println("etcd bench: " + json);
        assertThat((double) out.get("oursTxnPerAcquire")).isEqualTo(1.0);
        assertThat((double) out.get("oursDeletePerRelease")).isEqualTo(1.0);
        assertThat((double) out.get("oursContendedPerSecond"))
                .isGreaterThan((double) out.get("jetcdLockContendedPerSecond"));
    }
}
