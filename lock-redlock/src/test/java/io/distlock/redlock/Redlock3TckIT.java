package io.distlock.redlock;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;

/** The full TCK on three independent masters. */
class Redlock3TckIT extends LockProviderTck {
    @Override
    protected TckFixture createFixture() {
        return new RedlockTckFixture(3);
    }
}
