package io.distlock.shedlock;

import io.distlock.testing.servers.SharedBackends.Backend;

/** ShedLock's provider suite on ZooKeeper. */
class ZooKeeperShedLockIT extends ShedLockSuite {
    @Override
    Backend backend() {
        return Backend.ZOOKEEPER;
    }
}
