package io.distlock.compare.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.ReentrantLockProvider;
import io.distlock.compare.Comparison;
import io.distlock.compare.ComparisonResult;
import io.distlock.compare.ComparisonSettings;
import io.distlock.compare.ComparisonTarget;
import io.distlock.compare.LockClient;
import io.distlock.compare.Scenario;
import io.distlock.memory.MemoryLockProvider;
import io.distlock.memory.MemoryLockServer;
import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

class CompareMyBackendTest {

    @Test
    void myBackend_handsOffAndScalesLikeTheReference() {
        MemoryLockServer mine = MemoryLockServer.create(); // stands in for your backend's server
        MemoryLockServer reference = MemoryLockServer.create();
        ComparisonSettings settings = ComparisonSettings.quick()
                .withScenarios(EnumSet.of(Scenario.UNCONTENDED, Scenario.CONTENDED, Scenario.HANDOFF_1))
                .withContendedDuration(Duration.ofMillis(500));

        ComparisonResult r = Comparison.of(settings)
                .target(ComparisonTarget.of(
                        "mine",
                        "mine",
                        () -> LockClient.of(ReentrantLockProvider.wrap(
                                MemoryLockProvider.builder().server(mine).build()))))
                .target(ComparisonTarget.of(
                        "reference",
                        "mem",
                        () -> LockClient.of(
                                MemoryLockProvider.builder().server(reference).build())))
                .run();

        assertThat(r.value("mine", Scenario.CONTENDED, "lost_updates")).isZero();
        assertThat(r.value("mine", Scenario.HANDOFF_1, "p50_us"))
                .isLessThan(20 * r.value("reference", Scenario.HANDOFF_1, "p50_us") + 5_000);
        System.out.println(r.toMarkdown());
    }
}
