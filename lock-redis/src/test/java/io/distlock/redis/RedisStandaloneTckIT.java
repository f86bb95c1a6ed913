package io.distlock.redis;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;

/** The full TCK on standalone Redis. */
class RedisStandaloneTckIT extends LockProviderTck {
    @Override
    protected TckFixture createFixture() {
        return RedisTckFixture.standalone();
    }
}
