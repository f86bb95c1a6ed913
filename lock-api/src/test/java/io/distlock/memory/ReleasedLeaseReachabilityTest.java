package io.distlock.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.spi.LockEngine;
import io.distlock.spi.RenewalMode;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A lease its holder has released — at once, or after a delay once the delay is over — is not kept
 * reachable by the engine: its timer tasks (renewal, validity check, hold-time and renewal caps)
 * are cancelled and it leaves every set the engine keeps. A service that takes and releases locks
 * with caps of hours for weeks on end does not pile up its released leases until their caps come due.
 */
class ReleasedLeaseReachabilityTest {
    /** Renewed, with both caps far away: every timer task a lease can have is armed. */
    private static final LockOptions CAPPED = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .maxHoldTime(Duration.ofHours(1))
            .maxRenewals(1_000)
            .build();

    private final MemoryLockServer server = MemoryLockServer.create();
    private final List<LockProvider> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(LockProvider::close);
    }

    /** Lease times kept by the server (the in-JVM server's own). */
    private LockProvider serverKept() {
        LockProvider p =
                MemoryLockProvider.builder().server(server).options(CAPPED).build();
        clients.add(p);
        return p;
    }

    /** Lease times kept by the engine: locks live as long as the client's session. */
    private LockProvider engineKept() {
        LockProvider p =
                LockEngine.create(new EngineKeptDriver(server, RenewalMode.SESSION, TimeUnit.HOURS.toNanos(1)), CAPPED);
        clients.add(p);
        return p;
    }

    @Test
    void release_theLeaseBecomesUnreachable() throws InterruptedException {
        WeakReference<Lease> ref = acquireAndEnd(
                serverKept(), "released", l -> assertThat(l.release()).isTrue());
        awaitCollected(ref);
    }

    @Test
    void releaseAfter_serverKeepsTheDelay_theLeaseBecomesUnreachableAtOnce() throws InterruptedException {
        WeakReference<Lease> ref = acquireAndEnd(
                serverKept(),
                "delayed-on-server",
                l -> assertThat(l.releaseAfter(Duration.ofHours(1))).isTrue());
        awaitCollected(ref);
    }

    @Test
    void releaseAfter_engineKeepsTheDelay_theLeaseBecomesUnreachableWhenTheDelayIsOver() throws InterruptedException {
        LockProvider client = engineKept();
        WeakReference<Lease> ref = acquireAndEnd(
                client,
                "delayed-by-engine",
                l -> assertThat(l.releaseAfter(Duration.ofMillis(200))).isTrue());
        // the delay is over once another client can take the lock
        assertThat(engineKept().lock("delayed-by-engine").tryAcquire(Duration.ofSeconds(5)))
                .as("another client after the 200 ms delay")
                .isPresent();
        awaitCollected(ref);
    }

    /**
     * Acquires {@code name}, ends the lease with {@code end} and returns a weak reference to it; no
     * strong reference is left in the test.
     */
    private static WeakReference<Lease> acquireAndEnd(
            LockProvider client, String name, java.util.function.Consumer<Lease> end) throws InterruptedException {
        Lease lease = client.lock(name).acquire();
        end.accept(lease);
        return new WeakReference<>(lease);
    }

    private static void awaitCollected(WeakReference<Lease> ref) {
        await("the ended lease is collected")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    System.gc();
                    return ref.get() == null;
                });
    }
}
