package io.distlock.shedlock;

import io.distlock.testing.servers.SharedBackends.Backend;

/** ShedLock's provider suite on MySql. */
class MySqlShedLockIT extends ShedLockSuite {
    @Override
    Backend backend() {
        return Backend.MYSQL;
    }
}
