package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A convoy (several providers acquiring and releasing one lock in a loop) costs no gRPC stream and
 * fewer watch requests than acquisitions: each provider keeps one watch stream, and a wait on a
 * key it already watches (in a convoy: the same other provider's key as last time) reuses that
 * standing watch. Counted from the server's own metrics. A gRPC stream (or a create request) per
 * wait would cost about one of each per acquisition.
 */
class EtcdConvoyIT {
    private static final int PROVIDERS = 4;
    private static final int ACQUISITIONS = 160;

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

    private static EtcdLockProvider provider() {
        return EtcdLockProvider.builder()
                .endpoints(server.endpoint())
                .lockOptions(LockOptions.defaults()
                        .mutate()
                        .leaseTime(Duration.ofSeconds(10))
                        .build())
                .build();
    }

    @Test
    void convoy_fourProviders_watchStreamsPerProviderNotPerAcquisition() throws Exception {
        List<EtcdLockProvider> ps = new ArrayList<>();
        try {
            for (int i = 0; i < PROVIDERS; i++) {
                ps.add(provider());
                ps.get(i).lock("warm-up").tryAcquire().orElseThrow().release(); // session, channel
            }
            Map<String, Long> started0 = server.started();
            Map<String, Long> received0 = server.received();
            AtomicInteger left = new AtomicInteger(ACQUISITIONS);
            AtomicInteger done = new AtomicInteger();
            AtomicInteger inside = new AtomicInteger();
            AtomicReference<Throwable> error = new AtomicReference<>();
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (EtcdLockProvider p : ps) {
                fs.add(CompletableFuture.runAsync(() -> {
                    try {
                        while (left.getAndDecrement() > 0) {
                            Optional<Lease> l = p.lock("convoy").tryAcquire(Duration.ofSeconds(30));
                            if (l.isEmpty()) {
                                throw new AssertionError("no acquisition within 30 s");
                            }
                            if (inside.incrementAndGet() != 1) {
                                throw new AssertionError("two holders at once");
                            }
                            inside.decrementAndGet();
                            done.incrementAndGet();
                            l.get().release();
                        }
                    } catch (Throwable t) {
                        error.compareAndSet(null, t);
                    }
                }));
            }
            CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).get(120, TimeUnit.SECONDS);
            assertThat(error.get()).isNull();
            assertThat(done.get()).isEqualTo(ACQUISITIONS);
            Map<String, Long> started = EtcdTestServer.diff(started0, server.started());
            Map<String, Long> received = EtcdTestServer.diff(received0, server.received());
            System.out.printf(
                    "etcd convoy, %d providers, %d acquisitions: calls started %s, messages received %s%n",
                    PROVIDERS, ACQUISITIONS, started, received);
            // each provider keeps one stream (a reconnect would add one)
            assertThat(started.getOrDefault("Watch", 0L)).isBetween(1L, 2L * PROVIDERS);
            // waits reuse standing watches: fewer watch requests than acquisitions (a standing
            // watch is re-made when the queue order changes); a watch per wait would send at least a
            // create per wait
            assertThat(received.getOrDefault("Watch", 0L))
                    .as("watch requests for %d acquisitions", ACQUISITIONS)
                    .isBetween(1L, (long) ACQUISITIONS - 1);
            // at most about one read per hand-off (none when the predecessor was known to be the
            // oldest or its delete carried the holder mark), plus a confirming read for a watch
            // made after the listing
            assertThat(received.getOrDefault("Range", 0L)).isLessThanOrEqualTo((long) (ACQUISITIONS * 1.5));
            // one queueing transaction per acquisition, plus the holder mark of each that waited
            assertThat(received.get("Txn")).isBetween((long) ACQUISITIONS, 2L * ACQUISITIONS);
            assertThat(received.get("DeleteRange")).isEqualTo((long) ACQUISITIONS);
            for (EtcdLockProvider p : ps) {
                assertThat(p.watchStreamsOpened()).isBetween(0L, 2L); // 0: it never had to wait
            }
        } finally {
            for (EtcdLockProvider p : ps) {
                p.close();
            }
        }
    }
}
