package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.fencing.InMemoryFencingGuard;
import io.distlock.fencing.StaleTokenException;
import io.distlock.testing.faults.ChildJvmLockClient;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A holder in a child JVM frozen (SIGSTOP) past its lease. */
class EtcdChildJvmIT {
    private static EtcdTestServer server;

    @BeforeAll
    static void start() {
        server = EtcdTestServer.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void pausedHolderJvm_otherAcquiresWithLargerToken_resumedHolderLostAndFencedOff() throws Exception {
        String uri = "etcd://" + server.endpoint().replace("http://", "") + "?leaseTime=1s";
        InMemoryFencingGuard resource = new InMemoryFencingGuard();
        try (ChildJvmLockClient holder = ChildJvmLockClient.start(uri);
                EtcdLockProvider other = EtcdLockProvider.builder()
                        .endpoints(server.endpoint())
                        .lockOptions(LockOptions.defaults()
                                .mutate()
                                .leaseTime(Duration.ofSeconds(2))
                                .build())
                        .build()) {
            var got = holder.acquire("frozen", Duration.ofSeconds(5));
            assertThat(got.acquired()).isTrue();
            long childToken = got.token().getAsLong();
            resource.check("row", childToken); // its write before the pause is accepted
            holder.pause();
            try {
                Lease mine =
                        other.lock("frozen").tryAcquire(Duration.ofSeconds(10)).orElseThrow();
                assertThat(mine.fencingToken().getAsLong()).isGreaterThan(childToken);
                resource.check("row", mine.fencingToken().getAsLong());
                holder.resume();
                // the resumed holder knows its lease is gone ...
                await().atMost(Duration.ofSeconds(3)).until(() -> !holder.isValid());
                // ... and a write with its old token is refused by the resource
                assertThatThrownBy(() -> resource.check("row", childToken)).isInstanceOf(StaleTokenException.class);
                // its release cannot touch our lock
                assertThat(holder.release()).isFalse();
                assertThat(mine.isValid()).isTrue();
                mine.release();
            } finally {
                holder.resume();
            }
        }
    }
}
