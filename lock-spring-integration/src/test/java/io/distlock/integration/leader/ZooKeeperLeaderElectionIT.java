package io.distlock.integration.leader;

import io.distlock.testing.servers.SharedBackends.Backend;

/** Leader election on ZooKeeper, three candidate JVMs. */
class ZooKeeperLeaderElectionIT extends LeaderElectionSuite {
    @Override
    Backend backend() {
        return Backend.ZOOKEEPER;
    }
}
