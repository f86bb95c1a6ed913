package io.distlock.integration.leader;

import io.distlock.testing.servers.SharedBackends.Backend;

/** Leader election on Redis, three candidate JVMs. */
class RedisLeaderElectionIT extends LeaderElectionSuite {
    @Override
    Backend backend() {
        return Backend.REDIS;
    }
}
