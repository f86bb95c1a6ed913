package io.distlock.redis;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;

/** The full TCK on cluster Redis. */
class RedisClusterTckIT extends LockProviderTck {
    @Override
    protected TckFixture createFixture() {
        return RedisTckFixture.cluster();
    }
}
