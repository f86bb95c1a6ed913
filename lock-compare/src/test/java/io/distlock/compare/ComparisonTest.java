package io.distlock.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockOptions;
import io.distlock.memory.MemoryLockProvider;
import io.distlock.memory.MemoryLockServer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class ComparisonTest {

    /** A target on its own in-JVM server with a 600 ms lease: the server counts requests, the floor is one. */
    static ComparisonTarget mem(String name) {
        MemoryLockServer server = MemoryLockServer.create();
        return ComparisonTarget.of(
                        name,
                        "mem",
                        () -> LockClient.of(MemoryLockProvider.builder()
                                .server(server)
                                .options(LockOptions.builder()
                                        .leaseTime(Duration.ofMillis(600))
                                        .build())
                                .build()))
                .withFloor(server::requests, 2)
                .withServerRequests(() -> OptionalLong.of(server.requests()))
                .withCapabilities(MemoryLockProvider.create().capabilities());
    }

    /** A "lock" that never excludes anyone: the contended scenario must see lost updates. */
    private static ComparisonTarget broken() {
        return ComparisonTarget.of("no-lock", "none", () -> new LockClient() {
                    @Override
                    public Optional<Hold> acquire(String name, Duration maxWait) {
                        return Optional.of(() -> {});
                    }

                    @Override
                    public void close() {}
                })
                .asPeer();
    }

    @Test
    void run_quickSettings_everyScenarioMeasuredForEveryTarget() {
        CopyOnWriteArrayList<String> progress = new CopyOnWriteArrayList<>();
        ComparisonSettings settings = ComparisonSettings.quick().withContendedDuration(Duration.ofMillis(500));
        ComparisonResult r = Comparison.of(settings)
                .target(mem("mem"))
                .progress(progress::add)
                .run();

        for (Scenario s : Scenario.values()) {
            assertThat(r.find("mem", s))
                    .as(s.name())
                    .hasValueSatisfying(m -> assertThat(m.note()).isNull());
        }
        assertThat(r.value("mem", Scenario.UNCONTENDED, "p50_us")).isPositive();
        // mem: one request to acquire, one to release
        // counted around the operation blocks only: the interleaved floor probes are not in it
        assertThat(r.value("mem", Scenario.UNCONTENDED, "round_trips_per_op")).isBetween(1.9, 2.1);
        assertThat(r.value("mem", Scenario.UNCONTENDED, "floor_p50_us")).isPositive();
        assertThat(r.value("mem", Scenario.CONTENDED, "lost_updates")).isZero();
        assertThat(r.value("mem", Scenario.CONTENDED, "acquisitions")).isPositive();
        assertThat(r.value("mem", Scenario.HANDOFF_1, "count")).isEqualTo(settings.handoffRounds());
        assertThat(r.value("mem", Scenario.HANDOFF_MANY, "waiters")).isEqualTo(settings.manyWaiters());
        // the floor probe also timed after the hold's idle, next to the hand-offs
        assertThat(r.value("mem", Scenario.HANDOFF_1, "floor_after_idle_p50_us"))
                .isPositive();
        // 600 ms lease renewed every 200 ms: about 5 requests/s per held lock, so N locks cost N times more
        double one = r.value("mem", Scenario.RENEWAL, "requests_per_s_1_lock");
        double many = r.value("mem", Scenario.RENEWAL, "requests_per_s_n_locks");
        assertThat(one).isBetween(2.0, 8.0);
        assertThat(many).isGreaterThan(one * 3);
        assertThat(progress).hasSize(Scenario.values().length).allMatch(l -> l.contains("mem"));
    }

    /** A peer on {@code backend} whose acquisitions each take at least {@code nanos}, logging its calls. */
    private static ComparisonTarget slowPeer(String name, String backend, long nanos, java.util.List<String> calls) {
        return ComparisonTarget.of(name, backend, () -> new LockClient() {
                    @Override
                    public Optional<Hold> acquire(String lock, Duration maxWait) {
                        calls.add(name);
                        long end = System.nanoTime() + nanos;
                        while (System.nanoTime() - end < 0) {
                            Thread.onSpinWait();
                        }
                        return Optional.of(() -> {});
                    }

                    @Override
                    public void close() {}
                })
                .asPeer();
    }

    @Test
    void medianBlockRatio_comparesEachBlockWithItsNeighbour_notTheOverallP50s() {
        // blocks of two: the operation and its floor move together between a fast and a slow stretch
        long[] op = {10, 10, 100, 100, 100, 100};
        long[] floor = {5, 5, 5, 5, 90, 90};
        // the overall p50s fall in different stretches (100 against 5: 20 ×); block by block 2, 20,
        // 1.1: median 2
        assertThat(Latencies.of(op).get("p50_us") / Latencies.of(floor).get("p50_us"))
                .isEqualTo(20.0);
        assertThat(Latencies.medianBlockRatio(op, floor, 2)).isEqualTo(2.0);
        assertThat(Latencies.medianBlockRatio(new long[] {4, 4, 9, 9}, new long[] {2, 2, 3, 3}, 2))
                .as("even number of blocks: the mean of the middle two")
                .isEqualTo(2.5);
        assertThat(Latencies.medianBlockRatio(new long[] {1}, new long[] {1}, 2))
                .isNaN();
    }

    @Test
    void run_targetWithFloor_reportsTimesFloorBlockByBlock() {
        ComparisonSettings settings = ComparisonSettings.quick().withScenarios(EnumSet.of(Scenario.UNCONTENDED));
        ComparisonResult r = Comparison.of(settings).target(mem("mem")).run();
        assertThat(r.value("mem", Scenario.UNCONTENDED, "over_floor_by_blocks")).isPositive();
        assertThat(r.toMarkdown())
                .containsPattern(
                        "- mem: block by block, acquire\\+release took \\d+\\.\\d\\d × the floor of 2 round trips");
    }

    @Test
    void run_extraFloor_timedInterleaved_reportedOverTheRoundTripFloorAndBlockByBlock() {
        ComparisonSettings settings = ComparisonSettings.quick().withScenarios(EnumSet.of(Scenario.UNCONTENDED));
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        ComparisonResult r = Comparison.of(settings)
                .target(mem("mem").withExtraFloor("bare_requests_floor", () -> {
                    calls.incrementAndGet();
                    long end = System.nanoTime() + 200_000; // 200 µs: far above mem's acquire+release
                    while (System.nanoTime() - end < 0) {
                        Thread.onSpinWait();
                    }
                }))
                .run();

        assertThat(calls.get()).isGreaterThanOrEqualTo(settings.iterations());
        assertThat(r.value("mem", Scenario.UNCONTENDED, "bare_requests_floor_p50_us"))
                .isGreaterThanOrEqualTo(200.0);
        double byBlocks = r.value("mem", Scenario.UNCONTENDED, "over_bare_requests_floor_by_blocks");
        assertThat(byBlocks).isGreaterThan(0.0).isLessThan(1.0);
        assertThat(r.toMarkdown())
                .containsPattern(
                        "- mem: the bare requests floor, timed in blocks between its operations, took \\d+ µs at"
                                + " p50, \\d+\\.\\d\\d × the round-trip floor; acquire\\+release took 0\\.\\d\\d × it"
                                + " \\(0\\.\\d\\d × block by block\\)\\.");
    }

    @Test
    void run_oursAndPeersOfOneBackend_uncontendedMeasuredInterleavedAndRatioNoted() {
        CopyOnWriteArrayList<String> calls = new CopyOnWriteArrayList<>();
        ComparisonSettings settings = ComparisonSettings.quick().withScenarios(EnumSet.of(Scenario.UNCONTENDED));
        ComparisonTarget ours = mem("mem");
        ComparisonResult r = Comparison.of(settings)
                .target(ComparisonTarget.of("ours", "mem", () -> {
                    LockClient inner = ours.clients().get();
                    return new LockClient() {
                        @Override
                        public Optional<Hold> acquire(String lock, Duration maxWait) throws InterruptedException {
                            calls.add("ours");
                            return inner.acquire(lock, maxWait);
                        }

                        @Override
                        public void close() {
                            inner.close();
                        }
                    };
                }))
                .target(slowPeer("slow-peer", "mem", 300_000, calls))
                .target(ComparisonTarget.of("broken-peer", "mem", () -> {
                            throw new IllegalStateException("cannot connect");
                        })
                        .asPeer())
                .target(slowPeer("other-backend", "other", 0, calls))
                .run();

        // the peer's blocks sit between ours: the last operation of ours comes after the peer's first
        int peerFirst = calls.indexOf("slow-peer");
        assertThat(peerFirst).isPositive();
        assertThat(calls.lastIndexOf("ours")).isGreaterThan(peerFirst);
        assertThat(calls.lastIndexOf("slow-peer")).isGreaterThan(calls.indexOf("ours"));
        // a target of another backend is measured on its own, after
        assertThat(calls.indexOf("other-backend")).isGreaterThan(calls.lastIndexOf("ours"));
        assertThat(r.value("slow-peer", Scenario.UNCONTENDED, "distlock_over_this_p50"))
                .isLessThan(0.5);
        assertThat(r.valueIfPresent("ours", Scenario.UNCONTENDED, "distlock_over_this_p50"))
                .isEmpty();
        assertThat(r.valueIfPresent("other-backend", Scenario.UNCONTENDED, "distlock_over_this_p50"))
                .isEmpty();
        // a peer that cannot open a client fails alone
        assertThat(r.find("broken-peer", Scenario.UNCONTENDED))
                .hasValueSatisfying(m -> assertThat(m.note()).contains("cannot connect"));
        assertThat(r.toMarkdown())
                .containsPattern(
                        "ours: its acquire\\+release p50 is 0\\.[0-4]\\d × slow-peer's, the two measured in alternating"
                                + " blocks\\.");
    }

    @Test
    void run_handoffFloor_sampledNextToEachHandOffScenarioAndNotedUnderTheTable() {
        java.util.concurrent.atomic.AtomicInteger samples = new java.util.concurrent.atomic.AtomicInteger();
        ComparisonSettings settings =
                ComparisonSettings.quick().withScenarios(EnumSet.of(Scenario.HANDOFF_1, Scenario.HANDOFF_MANY));
        ComparisonResult r = Comparison.of(settings)
                .target(mem("mem").withHandoffFloor(idle -> {
                    samples.incrementAndGet();
                    return idle == 0 ? 250_000L : 400_000L; // 250 µs back to back, 400 after the idle
                }))
                .run();

        assertThat(r.value("mem", Scenario.HANDOFF_1, "handoff_floor_p50_us")).isEqualTo(250.0);
        assertThat(r.value("mem", Scenario.HANDOFF_MANY, "handoff_floor_p50_us"))
                .isEqualTo(250.0);
        assertThat(r.value("mem", Scenario.HANDOFF_1, "handoff_floor_idle_p50_us"))
                .isEqualTo(400.0);
        // as many timed samples of each kind as hand-off rounds, plus a short untimed warm-up, per scenario
        assertThat(samples.get()).isGreaterThanOrEqualTo(2 * 2 * settings.handoffRounds());
        assertThat(r.toMarkdown())
                .contains("The hand-off floor is the least a hand-off can take")
                .containsPattern(
                        "- mem, hand-off, 1 waiter: \\d+ µs, that is \\d+\\.\\d\\d × the hand-off floor \\(250 µs\\)")
                .contains("× it after the hold's idle (400 µs)");
        // a target without the probe reports no such metric
        ComparisonResult plain = Comparison.of(settings).target(mem("plain")).run();
        assertThat(plain.valueIfPresent("plain", Scenario.HANDOFF_1, "handoff_floor_p50_us"))
                .isEmpty();
    }

    @Test
    void run_brokenLock_lostUpdatesReported() {
        ComparisonSettings settings = ComparisonSettings.quick()
                .withScenarios(EnumSet.of(Scenario.CONTENDED))
                // long enough that the clients' read-modify-writes overlap even on a loaded machine
                .withContendedDuration(Duration.ofMillis(1500));
        ComparisonResult r = Comparison.of(settings).target(broken()).run();
        assertThat(r.value("no-lock", Scenario.CONTENDED, "lost_updates")).isPositive();
    }

    @Test
    void run_lockBrokenOnlyDuringTheContendedWarmUp_lostUpdatesStillReported() {
        // excludes nobody for its first 300 ms of use, then is a real mutex: every overlap falls in
        // the unmeasured warm-up (a quarter of 1.6 s), and must still be reported
        long[] firstUse = {0};
        java.util.concurrent.locks.ReentrantLock mutex = new java.util.concurrent.locks.ReentrantLock();
        ComparisonTarget target = ComparisonTarget.of("broken-early", "none", () -> new LockClient() {
                    @Override
                    public Optional<Hold> acquire(String name, Duration maxWait) throws InterruptedException {
                        synchronized (firstUse) {
                            if (firstUse[0] == 0) {
                                firstUse[0] = System.nanoTime();
                            }
                            if (System.nanoTime() - firstUse[0] < 300_000_000L) {
                                return Optional.of(() -> {});
                            }
                        }
                        if (!mutex.tryLock(maxWait.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS)) {
                            return Optional.empty();
                        }
                        return Optional.of(mutex::unlock);
                    }

                    @Override
                    public void close() {}
                })
                .asPeer();
        ComparisonSettings settings = ComparisonSettings.quick()
                .withScenarios(EnumSet.of(Scenario.CONTENDED))
                .withContendedDuration(Duration.ofMillis(1600));

        ComparisonResult r = Comparison.of(settings).target(target).run();

        assertThat(r.value("broken-early", Scenario.CONTENDED, "lost_updates")).isPositive();
    }

    @Test
    void reports_containEveryTargetChartAndValidJsonShape() {
        ComparisonSettings settings = ComparisonSettings.quick()
                .withScenarios(EnumSet.of(Scenario.FLOOR, Scenario.UNCONTENDED, Scenario.CONTENDED, Scenario.HANDOFF_1))
                .withContendedDuration(Duration.ofMillis(200));
        ComparisonResult r = Comparison.of(settings)
                .target(mem("mem \"quoted\" <b>"))
                .target(broken())
                .run();
        String json = r.toJson();
        assertThat(json)
                .contains(
                        "\"environment\"",
                        "\"measurements\"",
                        "\"targets\"",
                        "\"peer\": true",
                        "\"fencing\": \"GLOBALLY_MONOTONIC\"",
                        "mem \\\"quoted\\\" \\u003cb\\u003e");
        assertThat(json.chars().filter(c -> c == '{').count())
                .isEqualTo(json.chars().filter(c -> c == '}').count());
        String html = r.toHtml();
        assertThat(html)
                .contains(
                        "id=\"chart-uncontended\"",
                        "id=\"chart-throughput\"",
                        "id=\"chart-handoff\"",
                        "id=\"chart-roundtrips\"",
                        "id=\"chart-distribution\"",
                        "id=\"guarantees\"",
                        "(peer)");
        assertThat(html).doesNotContain("<b>").contains("&lt;b&gt;");
        assertThat(r.toMarkdown()).contains("| no-lock *(peer)* |");
    }

    @Test
    void value_missingMetric_namesWhatIsMissing() {
        ComparisonResult r = Comparison.of(ComparisonSettings.quick().withScenarios(EnumSet.of(Scenario.FLOOR)))
                .target(broken())
                .run();
        assertThatThrownBy(() -> r.value("no-lock", Scenario.FLOOR, "p50_us"))
                .hasMessageContaining("no metric 'p50_us'")
                .hasMessageContaining("no raw round-trip probe");
        assertThatThrownBy(() -> r.value("other", Scenario.FLOOR, "p50_us")).hasMessageContaining("target 'other'");
    }

    @Test
    void settings_badValues_rejectedNamingArgument() {
        assertThatThrownBy(() -> ComparisonSettings.quick().withContendedClients(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("contendedClients must be positive");
    }
}
