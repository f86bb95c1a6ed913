package io.distlock.spring.boot;

import io.distlock.Capabilities;
import io.distlock.Lease;
import io.distlock.LockProvider;
import java.util.Objects;
import java.util.Optional;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Up when the lock backend answers: the check tries once to acquire a dedicated lock ({@code
 * distlock.health.lock-name}, default {@code distlock-health}) and releases it at once. A lock held
 * by another instance at that moment also counts as up. Down when the attempt fails (backend
 * unreachable, provider closed). Details: the backend name, its capabilities and the probe's
 * outcome; never the URI or credentials.
 *
 * <p>Each check is one acquire and one release on the backend (two round trips on Redis, ZooKeeper
 * and etcd); it waits no longer than the backend's connect and socket timeouts.
 */
public class DistlockHealthIndicator extends AbstractHealthIndicator {
    private final LockProvider provider;
    private final String lockName;

    public DistlockHealthIndicator(LockProvider provider, String lockName) {
        super("distlock health check failed");
        this.provider = Objects.requireNonNull(provider, "provider must not be null");
        this.lockName = Objects.requireNonNull(lockName, "lockName must not be null");
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        Capabilities c = provider.capabilities();
        builder.withDetail("backend", provider.backend())
                .withDetail("fencing", c.fencing().name())
                .withDetail("automaticRenewal", c.automaticRenewal())
                .withDetail("wakeUp", c.wakeUp().name())
                .withDetail("fifo", c.fifo())
                .withDetail("failover", c.failover().name())
                .withDetail("probeLock", lockName);
        Optional<Lease> lease = provider.lock(lockName).tryAcquire();
        if (lease.isPresent()) {
            lease.get().release();
            builder.up().withDetail("probe", "acquired and released");
        } else {
            builder.up().withDetail("probe", "held by another client");
        }
    }
}
