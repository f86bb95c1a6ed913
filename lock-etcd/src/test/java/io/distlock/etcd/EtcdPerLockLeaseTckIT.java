package io.distlock.etcd;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;
import java.util.List;

/** The full TCK against a single etcd member, with one etcd lease per acquisition ({@code perLockLease}). */
class EtcdPerLockLeaseTckIT extends LockProviderTck {
    @Override
    protected TckFixture createFixture() {
        EtcdTestServer server = EtcdTestServer.start();
        return new EtcdTckFixture(List.of(server.endpoint()), server, true);
    }
}
