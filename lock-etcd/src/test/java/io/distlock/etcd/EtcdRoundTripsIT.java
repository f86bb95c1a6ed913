package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Counts the requests per operation from the server's own gRPC metrics. */
class EtcdRoundTripsIT {
    private static final Pattern HANDLED = Pattern.compile(
            "^grpc_server_handled_total\\{[^}]*grpc_method=\"(\\w+)\"[^}]*} ([0-9.e+]+)$", Pattern.MULTILINE);

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
    void uncontended_acquireIsOneTxn_releaseIsOneDelete() throws Exception {
        try (EtcdLockProvider p = EtcdLockProvider.builder()
                .endpoints(server.endpoint())
                .lockOptions(LockOptions.defaults()
                        .mutate()
                        .leaseTime(Duration.ofSeconds(30))
                        .build())
                .build()) {
            p.lock("warm-up").tryAcquire().orElseThrow().release(); // session grant, channels
            Map<String, Long> m0 = server.received();
            Lease l = p.lock("counted").tryAcquire().orElseThrow();
            Map<String, Long> m1 = server.received();
            l.release();
            Map<String, Long> m2 = server.received();
            Map<String, Long> acquire = EtcdTestServer.diff(m0, m1);
            Map<String, Long> release = EtcdTestServer.diff(m1, m2);
            System.out.println("etcd requests per uncontended acquire: " + acquire + ", per release: " + release);
            assertThat(acquire.get("Txn")).isEqualTo(1L);
            assertThat(acquire).doesNotContainKeys("Range", "DeleteRange", "Put");
            assertThat(release.get("DeleteRange")).isEqualTo(1L);
            assertThat(release).doesNotContainKeys("Range", "Txn", "Put");
        }
    }

    private static EtcdLockProvider provider() {
        return EtcdLockProvider.builder()
                .endpoints(server.endpoint())
                .lockOptions(LockOptions.defaults()
                        .mutate()
                        .leaseTime(Duration.ofSeconds(30))
                        .build())
                .build();
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    /**
     * etcd keeps a deleted key in its index until the next compaction, and every acquisition reads
     * a range of the lock's prefix, which walks those deleted keys too: one new key name per
     * acquisition made each uncontended acquisition slower than the one before. One thread
     * acquiring and releasing over and over must use one key name.
     */
    @Test
    void repeatedAcquireRelease_oneThread_reusesOneKeyName() throws Exception {
        String prefix = "/distlock/reuse-one/";
        try (EtcdLockProvider p = provider();
                Client admin = Client.builder().endpoints(server.endpoint()).build()) {
            long from = admin.getKVClient()
                    .get(bytes("/"))
                    .get(10, TimeUnit.SECONDS)
                    .getHeader()
                    .getRevision();
            List<WatchEvent> events = new CopyOnWriteArrayList<>();
            try (Watch.Watcher w = admin.getWatchClient()
                    .watch(
                            bytes(prefix),
                            WatchOption.builder()
                                    .isPrefix(true)
                                    .withRevision(from + 1)
                                    .build(),
                            r -> events.addAll(r.getEvents()))) {
                int n = 20;
                for (int i = 0; i < n; i++) {
                    p.lock("reuse-one").tryAcquire().orElseThrow().release();
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> events.size() >= 2 * n);
                Set<String> names = ConcurrentHashMap.newKeySet();
                events.forEach(e -> names.add(e.getKeyValue().getKey().toString(StandardCharsets.UTF_8)));
                assertThat(events).hasSize(2 * n);
                assertThat(names).hasSize(1);
            }
        }
    }

    @Test
    void twoAttemptsOfOneProvider_sameLock_useDistinctKeys_andFreedNamesAreReused() throws Exception {
        String prefix = "/distlock/reuse-two/";
        try (EtcdLockProvider p = provider();
                Client admin = Client.builder().endpoints(server.endpoint()).build()) {
            Lease first = p.lock("reuse-two").tryAcquire().orElseThrow();
            java.util.concurrent.CompletableFuture<Optional<Lease>> second =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                        try {
                            return p.lock("reuse-two").tryAcquire(Duration.ofSeconds(20));
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return Optional.empty();
                        }
                    });
            GetOption keys =
                    GetOption.builder().isPrefix(true).withKeysOnly(true).build();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> admin.getKVClient()
                                    .get(bytes(prefix), keys)
                                    .get(10, TimeUnit.SECONDS)
                                    .getCount()
                            == 2);
            List<String> both = admin.getKVClient().get(bytes(prefix), keys).get(10, TimeUnit.SECONDS).getKvs().stream()
                    .map(kv -> kv.getKey().toString(StandardCharsets.UTF_8))
                    .toList();
            assertThat(both).doesNotHaveDuplicates();
            first.release();
            Lease next = second.get(20, TimeUnit.SECONDS).orElseThrow();
            assertThat(next.fencingToken().getAsLong())
                    .isGreaterThan(first.fencingToken().getAsLong());
            next.release();
            // both names free again: the next two attempts use the same two names, no third
            Lease a = p.lock("reuse-two").tryAcquire().orElseThrow();
            String aKey = admin.getKVClient()
                    .get(bytes(prefix), keys)
                    .get(10, TimeUnit.SECONDS)
                    .getKvs()
                    .get(0)
                    .getKey()
                    .toString(StandardCharsets.UTF_8);
            assertThat(both).contains(aKey);
            a.release();
        }
    }
}
