package io.distlock.integration.leader;

import io.distlock.testing.servers.SharedBackends.Backend;

/** Leader election on Redlock (three independent masters), three candidate JVMs. */
class RedlockLeaderElectionIT extends LeaderElectionSuite {
    @Override
    Backend backend() {
        return Backend.REDLOCK;
    }

    @Override
    String query() {
        return super.query() + "&nodeTimeout=200ms";
    }
}
