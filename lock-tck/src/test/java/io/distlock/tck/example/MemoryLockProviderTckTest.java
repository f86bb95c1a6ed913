package io.distlock.tck.example;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;

/** Runs the whole TCK against the in-JVM provider. */
class MemoryLockProviderTckTest extends LockProviderTck {

    @Override
    protected TckFixture createFixture() {
        return new MemoryTckFixture();
    }
}
