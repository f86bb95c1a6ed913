package io.distlock.tck;

import java.util.Set;

/**
 * The TCK against the toy backend without bugs: the control for {@link BrokenProvidersTest} (the
 * broken variants differ from this one by one bug each).
 */
class ToyLockProviderTckTest extends LockProviderTck {

    @Override
    protected TckFixture createFixture() {
        return new ToyTckFixture(Set.of());
    }
}
