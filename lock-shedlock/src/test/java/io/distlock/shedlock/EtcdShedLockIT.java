package io.distlock.shedlock;

import io.distlock.testing.servers.SharedBackends.Backend;

/** ShedLock's provider suite on Etcd. */
class EtcdShedLockIT extends ShedLockSuite {
    @Override
    Backend backend() {
        return Backend.ETCD;
    }
}
