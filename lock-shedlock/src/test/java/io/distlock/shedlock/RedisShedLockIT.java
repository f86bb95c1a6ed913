package io.distlock.shedlock;

import io.distlock.testing.servers.SharedBackends.Backend;

/** ShedLock's provider suite on Redis. */
class RedisShedLockIT extends ShedLockSuite {
    @Override
    Backend backend() {
        return Backend.REDIS;
    }
}
