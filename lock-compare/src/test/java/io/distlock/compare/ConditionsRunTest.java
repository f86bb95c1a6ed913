package io.distlock.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A run with both machine modes, a delay line and scale curves, on the in-JVM provider. */
class ConditionsRunTest {

    /** A delay line that records the delays set (the in-JVM provider has no network to delay). */
    private static final class RecordingLine implements DelayLine {
        final List<Duration> set = new CopyOnWriteArrayList<>();

        @Override
        public void setOneWayDelay(Duration oneWay) {
            set.add(oneWay);
        }
    }

    /** A delay line that counts a round trip each time it is asked. */
    private static final class CountingLine implements DelayLine {
        final java.util.concurrent.atomic.AtomicLong asked = new java.util.concurrent.atomic.AtomicLong();

        @Override
        public void setOneWayDelay(Duration oneWay) {}

        @Override
        public java.util.OptionalLong roundTrips() {
            return java.util.OptionalLong.of(asked.incrementAndGet());
        }
    }

    @Test
    void heldLocks_throughALineThatCountsRoundTrips_reportsThemPerSecond() {
        CountingLine line = new CountingLine();
        java.util.concurrent.atomic.AtomicInteger variantClients = new java.util.concurrent.atomic.AtomicInteger();
        ComparisonTarget variant = mem("mem", false);
        ComparisonTarget counted = new ComparisonTarget(
                variant.name(),
                variant.backend(),
                variant.peer(),
                () -> {
                    variantClients.incrementAndGet();
                    return variant.clients().get();
                },
                variant.floor(),
                variant.serverRequests(),
                variant.floorRequestsPerOperation(),
                variant.serverVersion(),
                variant.capabilities(),
                variant.extraFloors(),
                variant.handoffFloor(),
                variant.serverConnections(),
                null,
                variant.limits());
        ComparisonSettings settings = ComparisonSettings.quick()
                .withScenarios(EnumSet.of(Scenario.RENEWAL))
                .withModes(List.of(MachineMode.IDLE))
                .withOneWayDelays(List.of(Duration.ZERO))
                .withScale(new ScalePoints(
                        List.of(), List.of(2), List.of(), Duration.ofMillis(200), Duration.ofMillis(500), 2));

        ComparisonResult r = Comparison.of(settings)
                .target(mem("mem", false).withDelayed(counted, line))
                .run();

        Measurement held = r.find("mem", Scenario.RENEWAL, Condition.point(2)).orElseThrow();
        assertThat(held.value("round_trips_per_s").orElseThrow())
                .as("one counted between the two readings of a 0.4 s window")
                .isBetween(0.5, 3.0);
        assertThat(variantClients)
                .as("the point's client connects through the line")
                .hasPositiveValue();
    }

    private static ComparisonTarget mem(String name, boolean peer) {
        ComparisonTarget t = ComparisonTest.mem(name);
        return peer ? t.asPeer() : t;
    }

    @Test
    void run_modesDelaysAndScale_eachMeasurementUnderItsCondition() {
        RecordingLine line = new RecordingLine();
        ComparisonTarget ours = mem("mem", false);
        ComparisonTarget peer = mem("other", true).withLimit(Scenario.RENEWAL, 1, "it holds one lock at most");
        ComparisonSettings settings = ComparisonSettings.quick()
                .withScenarios(EnumSet.of(Scenario.UNCONTENDED, Scenario.CONTENDED, Scenario.HANDOFF_1))
                .withContendedDuration(Duration.ofMillis(200))
                .withModes(List.of(MachineMode.IDLE, MachineMode.FAST))
                .withOneWayDelays(List.of(Duration.ZERO, Duration.ofMillis(1)))
                .withScale(new ScalePoints(
                        List.of(1, 2),
                        List.of(1, 3),
                        List.of(1, 3),
                        Duration.ofMillis(200),
                        Duration.ofMillis(500),
                        2));

        ComparisonResult r = Comparison.of(settings)
                .target(ours.withDelayed(mem("mem", false), line))
                .target(peer.withDelayed(mem("other", true), line))
                .run();

        for (MachineMode m : MachineMode.values()) {
            assertThat(r.find("mem", Scenario.UNCONTENDED, Condition.of(m)))
                    .as(m.name())
                    .hasValueSatisfying(x -> assertThat(x.value("p50_us")).isPresent());
            assertThat(r.find("mem", Scenario.HANDOFF_1, Condition.of(m))).isPresent();
            // each measurement carries the probe's readings, from which its mode is told
            assertThat(r.detectedMode(
                            r.find("mem", Scenario.HANDOFF_1, Condition.of(m)).orElseThrow()))
                    .isIn("idle", "fast", "mixed");
        }
        // the contended scenario is not run per mode
        assertThat(r.find("mem", Scenario.CONTENDED, Condition.BASE)).isPresent();
        assertThat(r.find("mem", Scenario.UNCONTENDED).orElseThrow().condition())
                .isEqualTo(Condition.of(MachineMode.IDLE));

        Condition delayed = Condition.delayed(Duration.ofMillis(1));
        for (Scenario s : ComparisonSettings.DELAY_SCENARIOS) {
            assertThat(r.find("other", s, delayed)).as(s.name()).isPresent();
        }
        assertThat(line.set).contains(Duration.ofMillis(1));
        assertThat(line.set.get(line.set.size() - 1)).isZero(); // reset after the delay runs

        assertThat(r.value("mem", Scenario.CONTENDED, "clients")).isEqualTo(4);
        assertThat(r.find("mem", Scenario.CONTENDED, Condition.point(2))
                        .orElseThrow()
                        .value("clients"))
                .hasValue(2);
        assertThat(r.find("mem", Scenario.CONTENDED, Condition.point(2))
                        .orElseThrow()
                        .value("p99_wait_us"))
                .isPresent();
        Measurement held = r.find("mem", Scenario.RENEWAL, Condition.point(3)).orElseThrow();
        assertThat(held.value("locks")).hasValue(3);
        assertThat(held.value("requests_per_s").orElseThrow()).isPositive();
        assertThat(held.value("round_trips_per_s"))
                .as("a line that does not count them")
                .isEmpty();
        assertThat(held.value("client_heap_mb")).isPresent();
        assertThat(r.find("other", Scenario.RENEWAL, Condition.point(3))
                        .orElseThrow()
                        .note())
                .isEqualTo("not measured: it holds one lock at most");
        Measurement waiters =
                r.find("mem", Scenario.HANDOFF_MANY, Condition.point(3)).orElseThrow();
        assertThat(waiters.value("waiters")).hasValue(3);
        assertThat(waiters.value("clients")).hasValue(2); // 4 threads on at most 2 clients
        assertThat(waiters.value("p50_us")).isPresent();

        // everything survives results.json
        ComparisonResult back = ComparisonResult.fromJson(r.toJson());
        assertThat(back.settings().modes()).isEqualTo(settings.modes());
        assertThat(back.settings().oneWayDelays()).isEqualTo(settings.oneWayDelays());
        assertThat(back.settings().scale()).isEqualTo(settings.scale());
        assertThat(back.measurements())
                .extracting(Measurement::condition)
                .containsExactlyElementsOf(
                        r.measurements().stream().map(Measurement::condition).toList());
        assertThat(back.toMarkdown()).isEqualTo(r.toMarkdown());
    }
}
