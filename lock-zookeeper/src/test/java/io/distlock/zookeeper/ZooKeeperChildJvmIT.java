package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.fencing.InMemoryFencingGuard;
import io.distlock.fencing.StaleTokenException;
import io.distlock.testing.faults.ChildJvmLockClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lock holders in child JVMs, so that the holder is a real process that can be frozen (SIGSTOP) past
 * its session or killed with -9 — not a client object of the test JVM. The session timeout follows
 * the lease time (2 s here).
 */
@Timeout(60)
class ZooKeeperChildJvmIT {
    private static final Duration SESSION = Duration.ofSeconds(2);
    private static ZooKeeperFixture fixture;

    @BeforeAll
    static void startServer() {
        fixture = ZooKeeperFixture.singleServer();
    }

    @AfterAll
    static void stopServer() {
        fixture.close();
    }

    private static String uri() {
        return "zookeeper://" + fixture.connectString() + "?leaseTime=" + SESSION.toMillis() + "ms";
    }

    private static ZooKeeperLockProvider other() {
        return fixture.newZkClient(LockOptions.builder().leaseTime(SESSION).build());
    }

    @Test
    void holderJvmFrozenPastSession_otherAcquiresLargerToken_resumedHolderLostAndFencedOff() throws Exception {
        InMemoryFencingGuard resource = new InMemoryFencingGuard();
        try (ChildJvmLockClient holder = ChildJvmLockClient.start(uri());
                ZooKeeperLockProvider other = other()) {
            ChildJvmLockClient.Acquisition got = holder.acquire("frozen", Duration.ofSeconds(5));
            assertThat(got.acquired()).isTrue();
            long childToken = got.token().getAsLong();
            resource.check("row", childToken);
            holder.pause();
            try {
                // the server expires the frozen holder's session; its node goes with it
                Lease mine = other.lock("frozen")
                        .tryAcquire(SESSION.multipliedBy(5))
                        .orElseThrow(() -> new AssertionError("the frozen holder's session never expired"));
                assertThat(mine.fencingToken().getAsLong()).isGreaterThan(childToken);
                resource.check("row", mine.fencingToken().getAsLong());
                holder.resume();
                // the resumed holder learns that its session (and so its lease) is gone ...
                await("the resumed holder reports its lease invalid")
                        .atMost(Duration.ofSeconds(5))
                        .until(() -> !holder.isValid());
                // ... its write with the old token is refused, and its release cannot touch our lock
                assertThatThrownBy(() -> resource.check("row", childToken)).isInstanceOf(StaleTokenException.class);
                assertThat(holder.release()).isFalse();
                assertThat(mine.isValid()).isTrue();
                assertThat(fixture.children(other.internals().lockPath("frozen")))
                        .hasSize(1);
                assertThat(mine.release()).isTrue();
            } finally {
                holder.resume();
            }
        }
    }

    @Test
    void holderJvmKilled_lockFreeWithinSessionTimeoutPlusMargin() throws Exception {
        try (ChildJvmLockClient holder = ChildJvmLockClient.start(uri());
                ZooKeeperLockProvider other = other()) {
            assertThat(holder.acquire("killed", Duration.ofSeconds(5)).acquired())
                    .isTrue();
            long killedAt = System.nanoTime();
            holder.kill();
            assertThat(holder.isAlive()).isFalse();
            // the connection is gone but the session is not closed: the node stays until it expires
            assertThat(fixture.children(other.internals().lockPath("killed"))).hasSize(1);
            Lease next = other.lock("killed")
                    .tryAcquire(SESSION.multipliedBy(5))
                    .orElseThrow(() -> new AssertionError("the killed holder's node was never removed"));
            long freedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            // expiry needs the session timeout (ZooKeeper's expiry runs in ticks of 100 ms here);
            // the margin covers the tick rounding and a loaded machine
            assertThat(freedAfterMs).isBetween(SESSION.toMillis() / 2, SESSION.toMillis() + 3_000);
            assertThat(next.release()).isTrue();
        }
    }
}
