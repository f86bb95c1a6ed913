package io.distlock.spring.boot;

import io.distlock.spring.LockedAdvisor;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings under {@code distlock.*}. */
@ConfigurationProperties(prefix = "distlock")
public class DistlockProperties {

    /**
     * Lock provider URI, for example redis://127.0.0.1:6379, zookeeper://host:2181, etcd://host:2379,
     * mysql://user:password@host:3306/db, postgresql://user:password@host:5432/db or mem://name (in-JVM,
     * for tests). The backend module
     * (io.distlock:lock-redis, ...) must be on the class path. No LockProvider bean is created
     * without it.
     */
    private String url;

    /**
     * How long a lease lasts on the server when its holder stops renewing (the TTL). Overrides the
     * URI's leaseTime parameter; 30 seconds (LockOptions.DEFAULT_LEASE_TIME) when neither is set.
     */
    private Duration leaseTime;

    /**
     * Whether held leases are renewed automatically (by a watchdog, or by the backend's session).
     * Overrides the URI's autoRenew parameter. When false, a lease ends at its lease time on every
     * backend. The URI's value, else true, when not set.
     */
    private Boolean autoRenew;

    /**
     * Cap on the total time a lease may be held through renewals. Overrides the URI's maxHoldTime
     * parameter; no cap when neither is set.
     */
    private Duration maxHoldTime;

    private final Health health = new Health();
    private final Metrics metrics = new Metrics();
    private final Locked locked = new Locked();

    public String getUrl() {
        return url;
    }

    public void setUrl(String url) {
        this.url = url;
    }

    public Duration getLeaseTime() {
        return leaseTime;
    }

    public void setLeaseTime(Duration leaseTime) {
        this.leaseTime = leaseTime;
    }

    public Boolean getAutoRenew() {
        return autoRenew;
    }

    public void setAutoRenew(Boolean autoRenew) {
        this.autoRenew = autoRenew;
    }

    public Duration getMaxHoldTime() {
        return maxHoldTime;
    }

    public void setMaxHoldTime(Duration maxHoldTime) {
        this.maxHoldTime = maxHoldTime;
    }

    public Health getHealth() {
        return health;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public Locked getLocked() {
        return locked;
    }

    /** Settings of the health indicator. */
    public static class Health {

        /**
         * Lock the health check tries to acquire and releases at once. A lock held by another
         * instance at that moment still counts as up: the backend answered.
         */
        private String lockName = "distlock-health";

        public String getLockName() {
            return lockName;
        }

        public void setLockName(String lockName) {
            this.lockName = lockName;
        }
    }

    /** Settings of the Micrometer metrics (recorded when a MeterRegistry bean exists). */
    public static class Metrics {

        /** Whether to record lock metrics (distlock.acquire, distlock.hold, ...) when a MeterRegistry exists. */
        private boolean enabled = true;

        /** Whether lock names become the "lock" tag; when false every lock is tagged "all". */
        private boolean tagLockNames = true;

        /** Cap on distinct lock-name tag values; later names are tagged "other". */
        private int maxLockNames = 100;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isTagLockNames() {
            return tagLockNames;
        }

        public void setTagLockNames(boolean tagLockNames) {
            this.tagLockNames = tagLockNames;
        }

        public int getMaxLockNames() {
            return maxLockNames;
        }

        public void setMaxLockNames(int maxLockNames) {
            this.maxLockNames = maxLockNames;
        }
    }

    /** Settings of @Locked methods. */
    public static class Locked {

        /** Whether @Locked methods are intercepted. */
        private boolean enabled = true;

        /**
         * Order of the @Locked advisor among other advice. Must be lower (outer) than the order of
         * the transaction advisor (@EnableTransactionManagement(order), default
         * Ordered.LOWEST_PRECEDENCE), so that the lock is released only after the commit; checked
         * at start-up.
         */
        private int order = LockedAdvisor.DEFAULT_ORDER;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getOrder() {
            return order;
        }

        public void setOrder(int order) {
            this.order = order;
        }
    }
}
