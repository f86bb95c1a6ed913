package io.distlock.shedlock.example;

import io.distlock.LockProviders;
import io.distlock.shedlock.DistlockShedLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;

@SpringBootApplication
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "10m")
public class ReportApplication {

    /** The distlock backend (lock-spring-boot-starter makes this bean from distlock.url by itself). */
    @Bean(destroyMethod = "close")
    io.distlock.LockProvider distlockProvider(@Value("${distlock.url}") String url) {
        return LockProviders.open(url);
    }

    /** ShedLock's provider: every @SchedulerLock now runs on that backend. */
    @Bean
    LockProvider shedLockProvider(io.distlock.LockProvider locks) {
        return DistlockShedLockProvider.create(locks);
    }
}
