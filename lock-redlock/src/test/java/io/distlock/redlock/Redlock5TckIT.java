package io.distlock.redlock;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;

/** The full TCK on five independent masters. */
class Redlock5TckIT extends LockProviderTck {
    @Override
    protected TckFixture createFixture() {
        return new RedlockTckFixture(5);
    }
}
