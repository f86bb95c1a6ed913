package io.distlock.shedlock;

import io.distlock.testing.servers.SharedBackends.Backend;

/** ShedLock's provider suite on the in-JVM backend. */
class MemShedLockTest extends ShedLockSuite {
    @Override
    Backend backend() {
        return Backend.MEM;
    }
}
