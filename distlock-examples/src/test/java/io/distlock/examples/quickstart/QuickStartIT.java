package io.distlock.examples.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.testing.servers.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The root README's first examples, run against a real Redis server. */
class QuickStartIT {
    private static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    /** Stands in for the resource the lock protects: it remembers the highest token it accepted. */
    static final class Storage {
        final List<Long> tokens = new ArrayList<>();

        void write(String data, long token) {
            assertThat(tokens).allMatch(t -> t < token);
            tokens.add(token);
        }
    }

    @Test
    void quickStart_locksWritesWithTheTokenAndReleases() throws Exception {
        String uri = "redis://" + server.address() + "?leaseTime=30s"; // e.g. redis://localhost:6379?leaseTime=30s
        Storage storage = new Storage();
        String data = "invoice 42 paid";
        // README-BEGIN quickstart
        try (LockProvider provider = LockProviders.open(uri)) {
            DistributedLock lock = provider.lock("invoice-42");
            try (Lease lease = lock.tryAcquire(Duration.ofSeconds(2)).orElseThrow()) {
                long token = lease.fencingToken().orElseThrow();
                storage.write(data, token); // the storage rejects tokens older than the last it saw
            }
        }
        // README-END
        assertThat(storage.tokens).hasSize(1);
    }

    @Test
    void leaseControl_shortLeaseExtendedThenReleasedLater() throws Exception {
        String uri = "redis://" + server.address();
        try (LockProvider provider = LockProviders.open(uri)) {
            // README-BEGIN lease-control
            DistributedLock report = provider.lock("nightly-report")
                    .withLeaseTime(Duration.ofMinutes(10)) // this handle's lease time
                    .withAutoRenew(false); // held at most 10 min unless extended
            try (Lease lease = report.tryAcquire().orElseThrow()) {
                // ... the job runs longer than planned:
                lease.extend(Duration.ofMinutes(10)); // owner-checked on the server
                // ... done early: keep others out until the slot is over
                lease.releaseAfter(Duration.ofMinutes(5));
            }
            // README-END
            assertThat(provider.lock("nightly-report").tryAcquire()).isEmpty();
        }
    }
}
