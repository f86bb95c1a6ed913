package io.distlock.integration.example;

import io.distlock.LockProvider;
import io.distlock.integration.DistlockLockRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

@Configuration(proxyBeanMethods = false)
public class LeaderConfiguration {

    /** Spring Integration's lock registry on the distlock backend (the starter makes this bean itself). */
    @Bean
    DistlockLockRegistry lockRegistry(LockProvider locks) {
        return DistlockLockRegistry.create(locks);
    }

    /** Elects one instance as the report writer, through the registry's lock "report-writer". */
    @Bean
    LockRegistryLeaderInitiator leaderInitiator(DistlockLockRegistry registry, ReportStore reports) {
        return new LockRegistryLeaderInitiator(registry, new ReportLeader(registry, reports));
    }
}
