package io.distlock.postgresql;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;

/**
 * The distlock TCK against PostgreSQL 15 behind PgBouncer in transaction pool mode, each client
 * behind its own TCP proxy in front of PgBouncer, logged in as the least-privilege lock role.
 */
class PgBouncerTckIT extends LockProviderTck {
    @Override
    protected TckFixture createFixture() {
        return PostgresTckFixture.behindPgBouncer(true, true);
    }
}
