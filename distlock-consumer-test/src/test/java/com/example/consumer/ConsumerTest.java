package com.example.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.distlock.Lease;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.testing.servers.EtcdServer;
import io.distlock.testing.servers.RedisServer;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A user's first lock on two backends, with artifacts from the staging repository only. */
class ConsumerTest {

    @Test
    void redisAndEtcd_fromTheStagedArtifacts_lockWithIncreasingTokens() throws Exception {
        try (RedisServer redis = RedisServer.start();
                EtcdServer etcd = EtcdServer.start()) {
            for (String uri : new String[] {
                "redis://" + redis.address() + "?leaseTime=5s", "etcd://" + etcd.address() + "?leaseTime=5s"
            }) {
                try (LockProvider a = LockProviders.open(uri);
                        LockProvider b = LockProviders.open(uri)) {
                    long first;
                    try (Lease lease = a.lock("invoice-42").tryAcquire(Duration.ofSeconds(2)).orElseThrow()) {
                        first = lease.fencingToken().orElseThrow();
                        assertEquals(Optional.empty(), b.lock("invoice-42").tryAcquire(), uri);
                    }
                    try (Lease next = b.lock("invoice-42").tryAcquire(Duration.ofSeconds(2)).orElseThrow()) {
                        assertTrue(next.fencingToken().orElseThrow() > first, uri);
                    }
                }
            }
        }
    }
}
