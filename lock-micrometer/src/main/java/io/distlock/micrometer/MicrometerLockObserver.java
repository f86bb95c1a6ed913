package io.distlock.micrometer;

import io.distlock.LeaseLostException;
import io.distlock.LockObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Records distlock's lock events as Micrometer meters, tagged with {@code backend} and {@code lock}:
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>meter</th><th>type</th><th>extra tags</th><th>what</th></tr>
 *   <tr><td>{@code distlock.acquire}</td><td>timer</td><td>{@code outcome}=acquired|not_acquired|failed</td>
 *       <td>time spent acquiring (the wait), per outcome</td></tr>
 *   <tr><td>{@code distlock.hold}</td><td>timer</td><td>{@code valid}=true|false</td>
 *       <td>how long leases were held, and whether they were still valid at release</td></tr>
 *   <tr><td>{@code distlock.renewals}</td><td>counter</td><td>{@code result}=ok|failed</td>
 *       <td>watchdog renewals</td></tr>
 *   <tr><td>{@code distlock.leases.lost}</td><td>counter</td><td></td><td>leases lost while held</td></tr>
 *   <tr><td>{@code distlock.leases.held}</td><td>gauge</td><td></td><td>leases currently held</td></tr>
 * </table>
 *
 * <p>Lock names become tag values, so their number is capped: after {@link Builder#maxLockNames(int)}
 * distinct names (default {@value #DEFAULT_MAX_LOCK_NAMES}), further names are recorded under
 * {@code lock=other}. Names can also be left out entirely with {@link Builder#tagLockNames(boolean)}.
 *
 * <pre>{@code
 * LockOptions options = LockOptions.builder()
 *         .observer(MicrometerLockObserver.create(registry))
 *         .build();
 * }</pre>
 *
 * Suggested alerts: a rising rate of {@code distlock.leases.lost} (work ran without protection);
 * {@code distlock.acquire{outcome=failed}} above zero (backend unavailable); a {@code
 * distlock.hold} maximum far above its usual value (a job stuck while holding); {@code
 * distlock.renewals{result=failed}} (a lease at risk before it is lost).
 */
public final class MicrometerLockObserver implements LockObserver {

    /** Default cap on distinct lock-name tag values. */
    public static final int DEFAULT_MAX_LOCK_NAMES = 100;

    /** Tag value used for lock names past the cap. */
    public static final String OTHER = "other";

    private final MeterRegistry registry;
    private final int maxLockNames;
    private final boolean tagLockNames;
    private final Set<String> knownNames = ConcurrentHashMap.newKeySet();
    private final Map<Tags, AtomicLong> held = new ConcurrentHashMap<>();

    private MicrometerLockObserver(Builder b) {
        this.registry = b.registry;
        this.maxLockNames = b.maxLockNames;
        this.tagLockNames = b.tagLockNames;
    }

    /** An observer with default settings. */
    public static MicrometerLockObserver create(MeterRegistry registry) {
        return builder(registry).build();
    }

    public static Builder builder(MeterRegistry registry) {
        return new Builder(registry);
    }

    private String lockTag(String lockName) {
        if (!tagLockNames) {
            return "all";
        }
        if (knownNames.contains(lockName)) {
            return lockName;
        }
        synchronized (knownNames) {
            if (knownNames.size() < maxLockNames) {
                knownNames.add(lockName);
                return lockName;
            }
        }
        return OTHER;
    }

    private Tags tags(String backend, String lockName) {
        return Tags.of("backend", backend, "lock", lockTag(lockName));
    }

    private Timer acquireTimer(String backend, String lockName, String outcome) {
        return Timer.builder("distlock.acquire")
                .description("time spent acquiring a lock, by outcome")
                .tags(tags(backend, lockName).and("outcome", outcome))
                .register(registry);
    }

    private AtomicLong heldGauge(String backend, String lockName) {
        Tags t = tags(backend, lockName);
        return held.computeIfAbsent(t, k -> {
            AtomicLong v = new AtomicLong();
            Gauge.builder("distlock.leases.held", v, AtomicLong::get)
                    .description("leases currently held")
                    .tags(k)
                    .register(registry);
            return v;
        });
    }

    @Override
    public void acquired(String backend, String lockName, Duration waited, OptionalLong fencingToken) {
        acquireTimer(backend, lockName, "acquired").record(waited);
        heldGauge(backend, lockName).incrementAndGet();
    }

    @Override
    public void notAcquired(String backend, String lockName, Duration waited) {
        acquireTimer(backend, lockName, "not_acquired").record(waited);
    }

    @Override
    public void failed(String backend, String lockName, Throwable error) {
        acquireTimer(backend, lockName, "failed").record(Duration.ZERO);
    }

    @Override
    public void released(String backend, String lockName, Duration heldFor, boolean wasValid) {
        Timer.builder("distlock.hold")
                .description("how long leases were held")
                .tags(tags(backend, lockName).and("valid", String.valueOf(wasValid)))
                .register(registry)
                .record(heldFor);
        heldGauge(backend, lockName).updateAndGet(v -> Math.max(0, v - 1));
    }

    @Override
    public void renewed(String backend, String lockName) {
        renewals(backend, lockName, "ok").increment();
    }

    @Override
    public void renewalFailed(String backend, String lockName, Throwable error) {
        renewals(backend, lockName, "failed").increment();
    }

    private Counter renewals(String backend, String lockName, String result) {
        return Counter.builder("distlock.renewals")
                .description("lease renewals by result")
                .tags(tags(backend, lockName).and("result", result))
                .register(registry);
    }

    @Override
    public void lost(String backend, String lockName, LeaseLostException cause) {
        Counter.builder("distlock.leases.lost")
                .description("leases lost while held")
                .tags(tags(backend, lockName))
                .register(registry)
                .increment();
    }

    /** Builder for {@link MicrometerLockObserver}. */
    public static final class Builder {
        private final MeterRegistry registry;
        private int maxLockNames = DEFAULT_MAX_LOCK_NAMES;
        private boolean tagLockNames = true;

        private Builder(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry must not be null");
        }

        /** @throws IllegalArgumentException if negative */
        public Builder maxLockNames(int max) {
            if (max < 0) {
                throw new IllegalArgumentException("maxLockNames must not be negative (was " + max + ")");
            }
            this.maxLockNames = max;
            return this;
        }

        /** Whether to tag meters with the lock name at all (default true). */
        public Builder tagLockNames(boolean tag) {
            this.tagLockNames = tag;
            return this;
        }

        public MicrometerLockObserver build() {
            return new MicrometerLockObserver(this);
        }
    }
}
