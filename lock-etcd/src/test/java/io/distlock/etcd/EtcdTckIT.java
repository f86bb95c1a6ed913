package io.distlock.etcd;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;
import java.util.List;

/**
 * The full TCK against a single etcd member that requires authentication: clients log in as a user
 * whose role may read and write the lock prefix only ({@link EtcdTckFixture#authenticating}), so
 * the error rules also see wrong credentials.
 */
class EtcdTckIT extends LockProviderTck {
    @Override
    protected TckFixture createFixture() {
        EtcdTestServer server = EtcdTestServer.start();
        return EtcdTckFixture.authenticating(List.of(server.endpoint()), server);
    }
}
