package io.distlock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockProvider;
import io.distlock.memory.MemoryLockProvider;
import io.distlock.spring.LockNotAcquiredException;
import io.distlock.spring.Locked;
import io.distlock.spring.LockedAdvisor;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@SuppressWarnings("try") // leases held by try-with-resources without being read
class DistlockAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DistlockAutoConfiguration.class,
                    DistlockHealthContributorAutoConfiguration.class,
                    DistlockLockedAutoConfiguration.class));

    @Test
    void provider_noUrl_noBean() {
        runner.run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx).doesNotHaveBean(LockProvider.class);
            assertThat(ctx).doesNotHaveBean(DistlockHealthIndicator.class);
            assertThat(ctx).doesNotHaveBean(LockedAdvisor.class);
        });
    }

    @Test
    void provider_propertiesOverrideUriParameters_leaseTimeAndAutoRenewApplied() {
        runner.withPropertyValues(
                        "distlock.url=mem://autoconfig-props?leaseTime=20s",
                        "distlock.lease-time=1500ms",
                        "distlock.auto-renew=false")
                .run(ctx -> {
                    LockProvider provider = ctx.getBean(LockProvider.class);
                    assertThat(provider).isInstanceOf(MemoryLockProvider.class);
                    assertThat(provider.toString()).contains("leaseTime=PT1.5S", "autoRenew=false");
                    try (Lease lease = provider.lock("a").acquire()) {
                        assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofMillis(1500));
                    }
                });
    }

    @Test
    void provider_badUrl_startupFailsNamingTheScheme() {
        runner.withPropertyValues("distlock.url=nosuch://x")
                .run(ctx -> assertThat(ctx)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("no lock backend for scheme 'nosuch'"));
    }

    @Test
    void provider_userBean_autoConfigurationBacksOff() {
        runner.withPropertyValues("distlock.url=mem://autoconfig-user")
                .withUserConfiguration(UserProvider.class)
                .run(ctx -> {
                    assertThat(ctx).hasSingleBean(LockProvider.class);
                    assertThat(ctx.getBean(LockProvider.class)).isSameAs(UserProvider.PROVIDER);
                    assertThat(ctx).hasSingleBean(DistlockHealthIndicator.class);
                });
    }

    @Test
    void metadata_generatedWithDescriptions() throws Exception {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in)
                    .as("spring-configuration-metadata.json on the class path")
                    .isNotNull();
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(json)
                    .contains(
                            "\"name\": \"distlock.url\"",
                            "\"name\": \"distlock.lease-time\"",
                            "\"name\": \"distlock.auto-renew\"",
                            "\"name\": \"distlock.max-hold-time\"",
                            "\"name\": \"distlock.locked.order\"",
                            "\"name\": \"distlock.health.lock-name\"",
                            "\"name\": \"management.health.distlock.enabled\"",
                            "Lock provider URI");
        }
    }

    @Test
    void metrics_meterRegistryPresent_observerRecordsAcquisitions() {
        runner.withPropertyValues("distlock.url=mem://autoconfig-metrics")
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(ctx -> {
                    MeterRegistry registry = ctx.getBean(MeterRegistry.class);
                    try (Lease lease = ctx.getBean(LockProvider.class)
                            .lock("metered")
                            .tryAcquire()
                            .orElseThrow()) {
                        assertThat(registry.get("distlock.leases.held")
                                        .tag("lock", "metered")
                                        .gauge()
                                        .value())
                                .isEqualTo(1.0);
                    }
                    assertThat(registry.get("distlock.acquire")
                                    .tag("backend", "mem")
                                    .tag("lock", "metered")
                                    .tag("outcome", "acquired")
                                    .timer()
                                    .count())
                            .isEqualTo(1);
                });
    }

    @Test
    void metrics_disabled_noObserver() {
        runner.withPropertyValues("distlock.url=mem://autoconfig-nometrics", "distlock.metrics.enabled=false")
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(ctx -> {
                    ctx.getBean(LockProvider.class)
                            .lock("m")
                            .tryAcquire()
                            .orElseThrow()
                            .release();
                    assertThat(ctx.getBean(MeterRegistry.class)
                                    .find("distlock.acquire")
                                    .timers())
                            .isEmpty();
                });
    }

    @Test
    void customizer_appliedAfterProperties() {
        runner.withPropertyValues("distlock.url=mem://autoconfig-customizer", "distlock.lease-time=5s")
                .withBean(
                        LockOptionsCustomizer.class,
                        () -> o -> o.mutate().leaseTime(Duration.ofMillis(800)).build())
                .run(ctx ->
                        assertThat(ctx.getBean(LockProvider.class).toString()).contains("leaseTime=PT0.8S"));
    }

    @Test
    void customizer_readmeBean_setsAnOptionThePropertiesDoNot() {
        runner.withPropertyValues("distlock.url=mem://autoconfig-readme-customizer", "distlock.lease-time=6s")
                .withUserConfiguration(RenewOften.class)
                .run(ctx -> assertThat(ctx.getBean(LockProvider.class).toString())
                        .contains("leaseTime=PT6S", "renewalFraction=0.2"));
    }

    @Configuration(proxyBeanMethods = false)
    static class RenewOften {
        // README-BEGIN lock-options-customizer
        @Bean
        LockOptionsCustomizer renewOften() {
            // renew after a fifth of the lease time instead of a third; the rest stays as configured
            return options -> options.mutate().renewalFraction(0.2).build();
        }
        // README-END
    }

    @Test
    void close_contextClosed_leasesReleasedAndNoDistlockThreadsLeft() {
        AtomicReference<Lease> held = new AtomicReference<>();
        runner.withPropertyValues("distlock.url=mem://autoconfig-close", "distlock.lease-time=1s")
                .run(ctx -> {
                    held.set(ctx.getBean(LockProvider.class).lock("closing").acquire());
                    assertThat(held.get().isValid()).isTrue();
                    assertThat(distlockThreads()).isNotEmpty(); // the watchdog renews the lease
                });
        assertThat(held.get().isValid()).isFalse();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(distlockThreads()).isEmpty());
        try (MemoryLockProvider other = MemoryLockProvider.builder()
                .server(io.distlock.memory.MemoryLockServer.named("autoconfig-close"))
                .build()) {
            Optional<Lease> again = other.lock("closing").tryAcquire();
            assertThat(again)
                    .as("the lock was released on close, not left to expire")
                    .isPresent();
            again.get().release();
        }
    }

    private static java.util.List<String> distlockThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(n -> n.startsWith("distlock-mem"))
                .toList();
    }

    @Test
    void health_memBackend_upWithDetailsAndNoUri() {
        runner.withPropertyValues("distlock.url=mem://user:secret@autoconfig-health")
                .run(ctx -> {
                    Health health = ctx.getBean(DistlockHealthIndicator.class).health(true);
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails())
                            .containsEntry("backend", "mem")
                            .containsEntry("fencing", "GLOBALLY_MONOTONIC")
                            .containsEntry("probeLock", "distlock-health")
                            .containsEntry("probe", "acquired and released");
                    assertThat(health.toString()).doesNotContain("secret").doesNotContain("mem://");
                });
    }

    @Test
    void health_probeLockHeldElsewhere_stillUp() {
        runner.withPropertyValues("distlock.url=mem://autoconfig-health-held", "distlock.health.lock-name=probe")
                .run(ctx -> {
                    try (MemoryLockProvider other = MemoryLockProvider.builder()
                                    .server(io.distlock.memory.MemoryLockServer.named("autoconfig-health-held"))
                                    .build();
                            Lease lease = other.lock("probe").acquire()) {
                        Health health =
                                ctx.getBean(DistlockHealthIndicator.class).health(true);
                        assertThat(health.getStatus()).isEqualTo(Status.UP);
                        assertThat(health.getDetails()).containsEntry("probe", "held by another client");
                    }
                });
    }

    @Test
    void health_providerClosed_down() {
        runner.withPropertyValues("distlock.url=mem://autoconfig-health-down").run(ctx -> {
            ctx.getBean(LockProvider.class).close();
            Health health = ctx.getBean(DistlockHealthIndicator.class).health(true);
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails()).containsKey("error");
        });
    }

    @Test
    void health_disabledByProperty_noBean() {
        runner.withPropertyValues(
                        "distlock.url=mem://autoconfig-health-off", "management.health.distlock.enabled=false")
                .run(ctx -> assertThat(ctx).doesNotHaveBean(DistlockHealthIndicator.class));
    }

    @Test
    void locked_literalAndSpelNames_lockTakenDuringCallAndReleasedAfter() {
        runner.withPropertyValues("distlock.url=mem://autoconfig-locked")
                .withBean(Jobs.class)
                .run(ctx -> {
                    Jobs jobs = ctx.getBean(Jobs.class);
                    LockProvider provider = ctx.getBean(LockProvider.class);
                    assertThat(jobs.nightly(provider)).isTrue();
                    assertThat(jobs.order(42L, provider)).isEqualTo("order-42");
                    assertThat(provider.lock("nightly-report").tryAcquire())
                            .as("released after the call")
                            .hasValueSatisfying(Lease::release);
                });
    }

    @Test
    void locked_lockHeldElsewhere_throwsLockNotAcquiredAndMethodDoesNotRun() {
        runner.withPropertyValues("distlock.url=mem://autoconfig-locked-held")
                .withBean(Jobs.class)
                .run(ctx -> {
                    Jobs jobs = ctx.getBean(Jobs.class);
                    LockProvider provider = ctx.getBean(LockProvider.class);
                    try (Lease lease = provider.lock("order-7").acquire()) {
                        long start = System.nanoTime();
                        assertThatThrownBy(() -> jobs.orderWithWait(7L))
                                .isInstanceOf(LockNotAcquiredException.class)
                                .hasMessageContaining("Jobs.orderWithWait(..) did not run")
                                .hasMessageContaining("order-7")
                                .hasMessageContaining("PT0.2S");
                        assertThat(Duration.ofNanos(System.nanoTime() - start))
                                .isGreaterThanOrEqualTo(Duration.ofMillis(200));
                        assertThatThrownBy(() -> jobs.order(7L, provider)).isInstanceOf(LockNotAcquiredException.class);
                    }
                    assertThat(jobs.runs()).as("the method did not run").isZero();
                });
    }

    @Test
    void locked_transactionAdvisorOrderedOutside_startupFails() {
        runner.withPropertyValues("distlock.url=mem://autoconfig-order", "distlock.locked.order=2147483647")
                .withUserConfiguration(TxConfig.class)
                .run(ctx -> assertThat(ctx.getStartupFailure())
                        .hasStackTraceContaining("runs it outside @Locked")
                        .hasStackTraceContaining("distlock.locked.order below 2147483647"));
    }

    @Test
    void locked_defaultOrderWithTransactions_startsAndProxiesOnce() {
        runner.withPropertyValues("distlock.url=mem://autoconfig-order-ok")
                .withUserConfiguration(TxConfig.class)
                .withBean(Jobs.class)
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx.getBean(Jobs.class).nightly(ctx.getBean(LockProvider.class)))
                            .isTrue();
                });
    }

    @Test
    void locked_leaseExpiresWhileMethodRuns_throwsLeaseLost() {
        runner.withPropertyValues(
                        "distlock.url=mem://autoconfig-lost", "distlock.lease-time=200ms", "distlock.auto-renew=false")
                .withBean(Jobs.class)
                .run(ctx -> {
                    LockProvider provider = ctx.getBean(LockProvider.class);
                    assertThatThrownBy(() -> ctx.getBean(Jobs.class).outlive(provider))
                            .isInstanceOf(io.distlock.LeaseLostException.class)
                            .hasMessageContaining("Jobs.outlive(..) ran")
                            .hasMessageContaining("short-lease");
                });
    }

    @Test
    void locked_badMaxWait_failsNamingTheMethodAndRule() {
        runner.withPropertyValues("distlock.url=mem://autoconfig-badwait")
                .withBean(Jobs.class)
                .run(ctx -> assertThatThrownBy(() -> ctx.getBean(Jobs.class).badWait())
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("@Locked(maxWait = \"soon\") on ")
                        .hasMessageContaining("Jobs.badWait(..)")
                        .hasMessageContaining("must be a duration"));
    }

    @Configuration(proxyBeanMethods = false)
    @org.springframework.transaction.annotation.EnableTransactionManagement
    static class TxConfig {
        @Bean
        org.springframework.transaction.PlatformTransactionManager transactionManager() {
            return new org.springframework.transaction.support.AbstractPlatformTransactionManager() {
                private static final long serialVersionUID = 1L;

                @Override
                protected Object doGetTransaction() {
                    return new Object();
                }

                @Override
                protected void doBegin(Object transaction, org.springframework.transaction.TransactionDefinition d) {}

                @Override
                protected void doCommit(org.springframework.transaction.support.DefaultTransactionStatus status) {}

                @Override
                protected void doRollback(org.springframework.transaction.support.DefaultTransactionStatus status) {}
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserProvider {
        static final MemoryLockProvider PROVIDER = MemoryLockProvider.create();

        @Bean
        LockProvider myProvider() {
            return PROVIDER;
        }
    }

    static class Jobs {
        private final java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @Locked(name = "nightly-report")
        public boolean nightly(LockProvider provider) {
            runs.incrementAndGet();
            return provider.lock("nightly-report").tryAcquire().isEmpty();
        }

        @Locked(name = "'order-' + #orderId")
        public String order(long orderId, LockProvider provider) {
            runs.incrementAndGet();
            assertThat(provider.lock("order-" + orderId).tryAcquire()).isEmpty();
            return "order-" + orderId;
        }

        /** Returns once another client could take the lock: its lease expired while this ran. */
        @Locked(name = "short-lease")
        public void outlive(LockProvider provider) {
            try (MemoryLockProvider other = MemoryLockProvider.builder()
                    .server(io.distlock.memory.MemoryLockServer.named("autoconfig-lost"))
                    .build()) {
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> other.lock("short-lease")
                                .tryAcquire()
                                .map(l -> {
                                    l.release();
                                    return true;
                                })
                                .orElse(false));
            }
        }

        @Locked(name = "bad", maxWait = "soon")
        public void badWait() {}

        @Locked(name = "'order-' + #p0", maxWait = "200ms")
        public void orderWithWait(long orderId) {
            runs.incrementAndGet();
        }
    }
}
