package io.distlock.redis;

import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;

/**
 * The full TCK on Sentinel Redis with every acquisition and renewal waiting for the replica's
 * acknowledgement ({@code requiredReplicas} 1): the path without the release script's hand-off,
 * with a {@code WAIT} after each write.
 */
class RedisSentinelReplicaAckTckIT extends LockProviderTck {
    @Override
    protected TckFixture createFixture() {
        return RedisTckFixture.sentinelWaitingForTheReplica();
    }
}
