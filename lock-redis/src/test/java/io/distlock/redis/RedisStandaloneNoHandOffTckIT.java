package io.distlock.redis;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;

/** The full TCK on standalone Redis with the hand-off by the release script switched off. */
class RedisStandaloneNoHandOffTckIT extends LockProviderTck {
    @Override
    protected TckFixture createFixture() {
        return RedisTckFixture.standaloneNoHandOff();
    }
}
