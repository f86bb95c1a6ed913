package io.distlock.integration.leader;

import io.distlock.testing.servers.SharedBackends.Backend;

/** Leader election on MySql, three candidate JVMs. */
class MySqlLeaderElectionIT extends LeaderElectionSuite {
    @Override
    Backend backend() {
        return Backend.MYSQL;
    }
}
