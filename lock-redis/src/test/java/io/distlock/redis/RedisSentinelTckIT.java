package io.distlock.redis;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;

/** The full TCK on sentinel Redis. */
class RedisSentinelTckIT extends LockProviderTck {
    @Override
    protected TckFixture createFixture() {
        return RedisTckFixture.sentinel();
    }
}
