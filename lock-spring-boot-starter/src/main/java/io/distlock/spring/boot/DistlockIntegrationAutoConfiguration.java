package io.distlock.spring.boot;

import io.distlock.LockProvider;
import io.distlock.integration.DistlockLockRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Spring Integration's {@link LockRegistry} on the application's distlock {@link LockProvider}, when
 * Spring Integration and {@code io.distlock:lock-spring-integration} are on the class path: a {@link
 * DistlockLockRegistry} bean, so aggregators, {@code LockRegistryLeaderInitiator} and other users of a
 * lock registry run on the backend named by {@code distlock.url}. Its lease time is {@code
 * distlock.lease-time} when set (what {@code renewLock(key)} extends by), else the provider's. An
 * application's own {@link LockRegistry} bean replaces it.
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnClass({LockRegistry.class, DistlockLockRegistry.class})
@ConditionalOnBean(LockProvider.class)
public class DistlockIntegrationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    public DistlockLockRegistry distlockLockRegistry(LockProvider provider, DistlockProperties properties) {
        DistlockLockRegistry.Builder registry = DistlockLockRegistry.builder(provider);
        if (properties.getLeaseTime() != null) {
            registry.leaseTime(properties.getLeaseTime());
        }
        return registry.build();
    }
}
