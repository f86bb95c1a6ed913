package io.distlock.redlock;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;

/** The full TCK on three nodes without fencing (one round): tokens must be reported absent. */
class Redlock3NoFencingTckIT extends LockProviderTck {
    @Override
    protected TckFixture createFixture() {
        return new RedlockTckFixture(3, false);
    }
}
