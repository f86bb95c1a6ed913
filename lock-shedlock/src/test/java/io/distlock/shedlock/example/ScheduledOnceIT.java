package io.distlock.shedlock.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.fencing.InMemoryFencingGuard;
import io.distlock.testing.servers.SharedBackends;
import io.distlock.testing.servers.SharedBackends.Backend;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The README's application, twice (two Spring Boot contexts, as two instances of one service) on one
 * Redis: {@code @Scheduled} fires on both every two seconds, and {@code @SchedulerLock} lets one run
 * per tick, with increasing fencing tokens.
 */
class ScheduledOnceIT {

    /** A report store shared by both instances, checking each write's token; a write takes 200 ms. */
    static final class RecordingStore implements ReportStore {
        record Run(String instance, long token, Instant at) {}

        final List<Run> runs = new CopyOnWriteArrayList<>();
        final InMemoryFencingGuard guard = new InMemoryFencingGuard();

        @Override
        public void write(String instance, long fencingToken) {
            guard.check("report", fencingToken);
            runs.add(new Run(instance, fencingToken, Instant.now()));
            try {
                Thread.sleep(200); // the report's work: both instances would overlap without the lock
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Runs per two-second tick. */
        Map<Long, Long> runsPerTick() {
            return runs.stream()
                    .collect(Collectors.groupingBy(r -> r.at().getEpochSecond() / 2, Collectors.counting()));
        }
    }

    @Test
    void twoInstancesOnOneBackend_runTheJobOncePerTick() {
        RecordingStore store = new RecordingStore();
        String url = SharedBackends.uri(Backend.REDIS);
        try (ConfigurableApplicationContext a = start("instance-a", url, store);
                ConfigurableApplicationContext b = start("instance-b", url, store)) {
            long ticksBefore = store.runsPerTick().size();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> store.runsPerTick().size() >= ticksBefore + 5);
        }
        assertThat(store.runsPerTick())
                .as("runs per tick")
                .allSatisfy((tick, runs) -> assertThat(runs).isEqualTo(1L));
        assertThat(store.runs).extracting(RecordingStore.Run::token).isSorted().doesNotHaveDuplicates();
    }

    private static ConfigurableApplicationContext start(String instance, String url, ReportStore store) {
        return new SpringApplicationBuilder(ReportApplication.class)
                .web(WebApplicationType.NONE)
                .properties("spring.application.name=" + instance, "distlock.url=" + url)
                .initializers(context -> context.getBeanFactory().registerSingleton("reportStore", store))
                .run();
    }
}
