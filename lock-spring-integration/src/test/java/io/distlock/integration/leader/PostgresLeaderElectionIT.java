package io.distlock.integration.leader;

import io.distlock.testing.servers.SharedBackends.Backend;

/** Leader election on PostgreSQL, three candidate JVMs. */
class PostgresLeaderElectionIT extends LeaderElectionSuite {
    @Override
    Backend backend() {
        return Backend.POSTGRESQL;
    }
}
