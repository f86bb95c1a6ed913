package io.distlock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.memory.MemoryLockProvider;
import io.distlock.memory.MemoryLockServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MicrometerLockObserverTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MemoryLockServer server = MemoryLockServer.create();

    private MemoryLockProvider provider(MicrometerLockObserver observer, Duration lease) {
        return MemoryLockProvider.builder()
                .server(server)
                .options(LockOptions.builder()
                        .leaseTime(lease)
                        .observer(observer)
                        .build())
                .build();
    }

    @Test
    void acquireHoldRelease_recordedPerOutcomeAndGaugeReturnsToZero() throws Exception {
        try (MemoryLockProvider p = provider(MicrometerLockObserver.create(registry), Duration.ofSeconds(5))) {
            Lease lease = p.lock("job").acquire();
            assertThat(registry.get("distlock.leases.held")
                            .tags("backend", "mem", "lock", "job")
                            .gauge()
                            .value())
                    .isEqualTo(1.0);
            assertThat(p.lock("job").tryAcquire()).isEmpty();
            lease.release();
            assertThat(registry.get("distlock.acquire")
                            .tags("outcome", "acquired")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get("distlock.acquire")
                            .tags("outcome", "not_acquired")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get("distlock.hold")
                            .tags("valid", "true")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get("distlock.leases.held")
                            .tags("lock", "job")
                            .gauge()
                            .value())
                    .isZero();
        }
    }

    @Test
    void renewalsAndLoss_counted() throws Exception {
        try (MemoryLockProvider p = provider(MicrometerLockObserver.create(registry), Duration.ofMillis(150))) {
            Lease lease = p.lock("r").acquire();
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> registry.find("distlock.renewals")
                                            .tags("result", "ok")
                                            .counter()
                                    != null
                            && registry.get("distlock.renewals")
                                            .tags("result", "ok")
                                            .counter()
                                            .count()
                                    >= 2);
            server.expire("r");
            lease.lost().toCompletableFuture().get();
            assertThat(registry.get("distlock.leases.lost")
                            .tags("lock", "r")
                            .counter()
                            .count())
                    .isEqualTo(1);
            lease.release();
            assertThat(registry.get("distlock.hold")
                            .tags("valid", "false")
                            .timer()
                            .count())
                    .isEqualTo(1);
        }
    }

    @Test
    void lockNames_cappedToLimit_restGoToOther() throws Exception {
        MicrometerLockObserver observer =
                MicrometerLockObserver.builder(registry).maxLockNames(2).build();
        try (MemoryLockProvider p = provider(observer, Duration.ofSeconds(5))) {
            for (String n : new String[] {"a", "b", "c", "d"}) {
                p.lock(n).acquire().release();
            }
        }
        assertThat(registry.find("distlock.acquire").tags("outcome", "acquired").timers())
                .extracting(t -> t.getId().getTag("lock"))
                .containsExactlyInAnyOrder("a", "b", "other");
        assertThat(registry.get("distlock.acquire")
                        .tags("lock", "other", "outcome", "acquired")
                        .timer()
                        .count())
                .isEqualTo(2);
    }

    @Test
    void readme_observerInLockOptions_recordsMeters() throws Exception {
        MeterRegistry meterRegistry = registry;
        // README-BEGIN micrometer-options
        LockOptions options = LockOptions.builder()
                .observer(MicrometerLockObserver.create(meterRegistry))
                .build();
        // README-END
        try (MemoryLockProvider p =
                MemoryLockProvider.builder().options(options).build()) {
            p.lock("readme").tryAcquire().orElseThrow().release();
        }
        assertThat(registry.find("distlock.acquire").timers()).isNotEmpty();
    }

    @Test
    void builder_negativeCap_rejected() {
        assertThatThrownBy(() -> MicrometerLockObserver.builder(registry).maxLockNames(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxLockNames");
    }
}
