package io.distlock.shedlock;

import io.distlock.testing.servers.SharedBackends.Backend;

/** ShedLock's provider suite on PostgreSQL. */
class PostgresShedLockIT extends ShedLockSuite {
    @Override
    Backend backend() {
        return Backend.POSTGRESQL;
    }
}
