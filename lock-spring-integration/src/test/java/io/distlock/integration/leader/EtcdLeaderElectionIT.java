package io.distlock.integration.leader;

import io.distlock.testing.servers.SharedBackends.Backend;

/** Leader election on Etcd, three candidate JVMs. */
class EtcdLeaderElectionIT extends LeaderElectionSuite {
    @Override
    Backend backend() {
        return Backend.ETCD;
    }
}
