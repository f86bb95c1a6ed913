package io.distlock.zookeeper;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;
import io.distlock.testing.servers.ZooKeeperEnsemble;

/** The full TCK against a 3-server ZooKeeper 3.8 ensemble, one process per server. */
class ZooKeeperEnsembleTckIT extends LockProviderTck {
    @Override
    protected TckFixture createFixture() {
        return ZooKeeperFixture.ensembleProcesses(ZooKeeperEnsemble.start(3));
    }
}
