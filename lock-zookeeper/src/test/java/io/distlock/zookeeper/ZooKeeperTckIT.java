package io.distlock.zookeeper;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;

/** The full TCK against a standalone ZooKeeper 3.8 server process. */
class ZooKeeperTckIT extends LockProviderTck {
    @Override
    protected TckFixture createFixture() {
        return ZooKeeperFixture.serverProcess();
    }
}
