package io.distlock.mysql;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;
import io.distlock.tck.TckTiming;
import java.time.Duration;

/**
 * The distlock TCK against MariaDB 10.11, each client behind its own TCP proxy, connected as the
 * least-privilege lock user of the README ({@link LeastPrivilegeUser}).
 */
class MySqlTckIT extends LockProviderTck {
    @Override
    protected TckFixture createFixture() {
        return new MySqlTckFixture(true, true);
    }

    /**
     * Short leases of 1 s: the server-side expiry ({@code wait_timeout}) has whole-second
     * granularity, so a 600 ms lease would be dropped by the server only after 1 s.
     */
    @Override
    protected TckTiming timing() {
        return TckTiming.defaults().withShortLease(Duration.ofSeconds(1));
    }
}
