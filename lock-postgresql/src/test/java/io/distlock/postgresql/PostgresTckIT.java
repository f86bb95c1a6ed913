package io.distlock.postgresql;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;

/**
 * The distlock TCK against PostgreSQL 15, each client behind its own TCP proxy, logged in as the
 * least-privilege lock role of the README ({@link LeastPrivilegeRole}), not the database's owner.
 */
class PostgresTckIT extends LockProviderTck {
    @Override
    protected TckFixture createFixture() {
        return new PostgresTckFixture(true, true);
    }
}
