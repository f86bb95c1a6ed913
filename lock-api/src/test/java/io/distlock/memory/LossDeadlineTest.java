package io.distlock.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * When the engine reports a lease lost, whatever the timing of its renewals: at the validity
 * deadline when the first renewal is due only after it, at the deadline (not at the next renewal)
 * when renewals fail, and with the lock freed on the server at once when a hold cap ends the lease. Each bound leaves hundreds of
 * milliseconds between the right moment and the wrong one.
 */
class LossDeadlineTest {
    private final MemoryLockServer server = MemoryLockServer.create();
    private final List<LockProvider> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        server.setAvailable(true);
        clients.forEach(LockProvider::close);
    }

    private LockProvider client(LockOptions options) {
        LockProvider p =
                MemoryLockProvider.builder().server(server).options(options).build();
        clients.add(p);
        return p;
    }

    @Test
    void firstRenewalDueAfterTheValidityDeadline_lossReportedAtTheDeadline() throws Exception {
        // validity 4 s - 2.44 s ≈ 1.56 s; the first renewal is due 3.6 s after the acquisition
        LockProvider a = client(LockOptions.builder()
                .leaseTime(Duration.ofSeconds(4))
                .minimumSafetyMargin(Duration.ofMillis(2_400))
                .renewalFraction(0.9)
                .build());
        long start = System.nanoTime();
        Lease lease = a.lock("late-renewal").tryAcquire().orElseThrow();

        assertThat(lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS)).isInstanceOf(LeaseLostException.class);
        assertThat(millisSince(start)).isLessThan(3_000);
    }

    @Test
    void renewalsFail_lossReportedAtTheDeadline_notAtTheNextRenewal() throws Exception {
        // renewed every 900 ms; validity ≈ 990 ms: the second renewal would come at 1.8 s
        LockProvider a = client(LockOptions.builder()
                .leaseTime(Duration.ofSeconds(1))
                .renewalFraction(0.9)
                .build());
        long start = System.nanoTime();
        Lease lease = a.lock("failing-renewal").tryAcquire().orElseThrow();
        server.setAvailable(false);

        assertThat(lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS))
                .hasMessageContaining("validity deadline passed");
        assertThat(millisSince(start)).isLessThan(1_600);
    }

    @Test
    void holdCapReached_lockFreedOnTheServerAtOnce_notAtItsTimeToLive() throws Exception {
        LockProvider a =
                client(LockOptions.builder().maxHoldTime(Duration.ofMillis(200)).build());
        Lease lease = a.lock("capped").tryAcquire().orElseThrow();

        assertThat(lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS))
                .hasMessageContaining("maximum hold time");
        // the server's time to live is 30 s
        await().atMost(Duration.ofSeconds(5)).until(() -> server.owner("capped").isEmpty());
    }

    private static long millisSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}
