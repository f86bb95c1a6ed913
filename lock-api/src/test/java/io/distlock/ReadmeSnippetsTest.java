package io.distlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.fencing.InMemoryFencingGuard;
import io.distlock.fencing.StaleTokenException;
import io.distlock.memory.MemoryLockProvider;
import io.distlock.memory.MemoryLockServer;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The code of lock-api's README, run. */
class ReadmeSnippetsTest {

    @Test
    void inJvmProvider_twoClientsOfOneServer() throws Exception {
        // README-BEGIN mem-provider
        MemoryLockServer server = MemoryLockServer.create();
        try (LockProvider a = MemoryLockProvider.builder().server(server).build();
                LockProvider b = MemoryLockProvider.builder().server(server).build()) {
            Lease lease = a.lock("job").tryAcquire().orElseThrow();
            assert b.lock("job").tryAcquire().isEmpty(); // another client of the same server waits
            lease.release();
        }
        // README-END
        assertThat(server.owner("job")).isEmpty();
    }

    @Test
    void withLockAndLostListener() throws Exception {
        MemoryLockServer server = MemoryLockServer.create();
        AtomicBoolean stopped = new AtomicBoolean();
        try (LockProvider provider = MemoryLockProvider.builder().server(server).build()) {
            // README-BEGIN with-lock
            long processed = provider.lock("reindex").withLock(Duration.ofSeconds(5), lease -> {
                lease.lost().thenAccept(cause -> stopped.set(true)); // stop early if the lease is lost
                return reindex(lease.fencingToken().orElseThrow());
            });
            // README-END
            assertThat(processed).isEqualTo(42);
        }
        assertThat(stopped).isFalse();
    }

    private static long reindex(long token) {
        assertThat(token).isPositive();
        return 42;
    }

    @Test
    void fencingGuard_rejectsAStaleHoldersWrite() {
        // README-BEGIN fencing-guard
        InMemoryFencingGuard guard = new InMemoryFencingGuard();
        guard.check("account-7", 41); // the holder with token 41 writes
        guard.check("account-7", 42); // a later holder writes
        // the holder with token 41 wakes up from a long pause and tries again:
        assertThatThrownBy(() -> guard.check("account-7", 41)).isInstanceOf(StaleTokenException.class);
        // README-END
    }

    @Test
    void observer_seesAcquisitionsAndReleases() throws Exception {
        List<String> events = new ArrayList<>();
        // README-BEGIN observer
        LockObserver log = new LockObserver() {
            @Override
            public void acquired(String backend, String lock, Duration waited, OptionalLong token) {
                events.add("acquired " + lock + " after " + waited.toMillis() + " ms");
            }

            @Override
            public void lost(String backend, String lock, LeaseLostException cause) {
                events.add("lost " + lock + ": " + cause.getMessage());
            }
        };
        try (LockProvider provider = LockProviders.open(
                URI.create("mem://readme-observer"),
                options -> options.mutate().observer(log).build())) {
            provider.lock("job").tryAcquire().orElseThrow().release();
        }
        // README-END
        assertThat(events).singleElement().asString().startsWith("acquired job");
    }

    @Test
    void capabilities_tellWhatTheBackendGuarantees() {
        try (LockProvider provider = LockProviders.open("mem://readme-caps")) {
            // README-BEGIN capabilities
            Capabilities caps = provider.capabilities();
            if (!caps.fencing().present()) {
                throw new IllegalStateException(provider.backend() + " hands out no fencing tokens");
            }
            // README-END
            assertThat(caps.fencing()).isEqualTo(Capabilities.Fencing.GLOBALLY_MONOTONIC);
        }
    }
}
