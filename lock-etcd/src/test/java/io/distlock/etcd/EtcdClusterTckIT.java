package io.distlock.etcd;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;

/** The full TCK against a 3-member etcd cluster (clients know all three endpoints). */
class EtcdClusterTckIT extends LockProviderTck {
    @Override
    protected TckFixture createFixture() {
        EtcdTestCluster cluster = EtcdTestCluster.start(3);
        return new EtcdTckFixture(cluster.endpoints(), cluster);
    }
}
