package io.distlock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.integration.DistlockLockRegistry;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/** The LockRegistry bean: present with Spring Integration and a provider, absent otherwise. */
class DistlockIntegrationAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(DistlockAutoConfiguration.class, DistlockIntegrationAutoConfiguration.class));

    @Test
    void registry_withProvider_isADistlockRegistryOnThatProvider() {
        runner.withPropertyValues("distlock.url=mem://autoconfig-registry", "distlock.lease-time=5s")
                .run(ctx -> {
                    assertThat(ctx).hasSingleBean(LockRegistry.class);
                    DistlockLockRegistry registry = ctx.getBean(DistlockLockRegistry.class);
                    assertThat(registry.locks()).isSameAs(ctx.getBean(io.distlock.LockProvider.class));
                    assertThat(registry.toString()).contains("leaseTime=PT5S");
                    Lock lock = registry.obtain("orders");
                    assertThat(lock.tryLock()).isTrue();
                    assertThat(registry.lease("orders")).isPresent();
                    lock.unlock();
                });
    }

    @Test
    void registry_noUrl_noBean() {
        runner.run(ctx -> assertThat(ctx).doesNotHaveBean(LockRegistry.class));
    }

    @Test
    void registry_withoutSpringIntegration_noBean() {
        runner.withPropertyValues("distlock.url=mem://autoconfig-registry-absent")
                .withClassLoader(new FilteredClassLoader(LockRegistry.class))
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx).hasSingleBean(io.distlock.LockProvider.class);
                    assertThat(ctx).doesNotHaveBean(DistlockLockRegistry.class);
                });
    }

    @Test
    void registry_userBean_autoConfigurationBacksOff() {
        runner.withPropertyValues("distlock.url=mem://autoconfig-registry-user")
                .withUserConfiguration(UserRegistry.class)
                .run(ctx -> {
                    assertThat(ctx).hasSingleBean(LockRegistry.class);
                    assertThat(ctx.getBean(LockRegistry.class)).isInstanceOf(DefaultLockRegistry.class);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class UserRegistry {
        @Bean
        LockRegistry<?> userRegistry() {
            return new DefaultLockRegistry();
        }
    }
}
