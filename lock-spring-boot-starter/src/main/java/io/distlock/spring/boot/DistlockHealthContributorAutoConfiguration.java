package io.distlock.spring.boot;

import io.distlock.LockProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link DistlockHealthIndicator} as the {@code distlock} health contributor when
 * spring-boot-health is present; switch it off with {@code management.health.distlock.enabled=false}.
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnBean(LockProvider.class)
@ConditionalOnEnabledHealthIndicator("distlock")
public class DistlockHealthContributorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "distlockHealthIndicator")
    public DistlockHealthIndicator distlockHealthIndicator(LockProvider provider, DistlockProperties properties) {
        return new DistlockHealthIndicator(provider, properties.getHealth().getLockName());
    }
}
