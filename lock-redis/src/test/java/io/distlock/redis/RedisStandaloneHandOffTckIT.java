package io.distlock.redis;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;

/** The full TCK on standalone Redis with the hand-off by the release script switched on. */
class RedisStandaloneHandOffTckIT extends LockProviderTck {
    @Override
    protected TckFixture createFixture() {
        return RedisTckFixture.standaloneHandOff();
    }
}
