package io.distlock.etcd.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.testing.servers.EtcdServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The requests behind an extension and a delayed release ({@link Kv#moveKey}) and the holder mark
 * that must never undo them ({@link Kv#markHolder}), through jetcd's API ({@link JetcdKv}): its put
 * cannot keep a key's lease, so it names one, and a late mark must not put a moved key back on it.
 */
class KeyMoveIT {
    private static EtcdServer server;
    private static Client client;
    private static Kv kv;

    @BeforeAll
    static void start() {
        server = EtcdServer.start();
        client = Client.builder().endpoints(server.endpoint()).build();
        kv = new JetcdKv(client);
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(5, TimeUnit.SECONDS);
    }

    private static KeyValue read(ByteSequence key) throws Exception {
        return get(client.getKVClient().get(key)).getKvs().get(0);
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    /** Puts {@code key}, unmarked, on lease {@code leaseId} and returns its create revision. */
    private static long putOn(ByteSequence key, long leaseId) throws Exception {
        get(client.getKVClient()
                .put(
                        key,
                        ByteSequence.EMPTY,
                        PutOption.builder().withLeaseId(leaseId).build()));
        return read(key).getCreateRevision();
    }

    @Test
    void moveKey_ownedKey_movesItKeepingItsCreateRevisionAndMarksIt() throws Exception {
        long first = get(kv.grant(30)).getID();
        long second = get(kv.grant(30)).getID();
        ByteSequence key = bytes("/key-move/moved");
        long created = putOn(key, first);

        assertThat(get(kv.moveKey(key, created, second)).isSucceeded()).isTrue();

        KeyValue moved = read(key);
        assertThat(moved.getLease()).isEqualTo(second);
        assertThat(moved.getCreateRevision()).isEqualTo(created);
        assertThat(moved.getValue().toString(StandardCharsets.UTF_8)).isEqualTo("holder");
    }

    @Test
    void moveKey_otherCreateRevision_changesNothing() throws Exception {
        long first = get(kv.grant(30)).getID();
        long second = get(kv.grant(30)).getID();
        ByteSequence key = bytes("/key-move/not-ours");
        long created = putOn(key, first);

        assertThat(get(kv.moveKey(key, created - 1, second)).isSucceeded()).isFalse();

        assertThat(read(key).getLease()).isEqualTo(first);
    }

    @Test
    void markHolder_afterTheKeyWasMoved_doesNotPutItBackOnItsFirstLease() throws Exception {
        long first = get(kv.grant(30)).getID();
        long second = get(kv.grant(30)).getID();
        ByteSequence key = bytes("/key-move/late-mark");
        long created = putOn(key, first);
        assertThat(get(kv.moveKey(key, created, second)).isSucceeded()).isTrue();

        // a mark sent before the move and applied after it
        assertThat(get(kv.markHolder(key, created, first)).isSucceeded()).isFalse();

        assertThat(read(key).getLease()).isEqualTo(second);
    }

    @Test
    void markHolder_unmarkedKey_marksItOnItsLease() throws Exception {
        long lease = get(kv.grant(30)).getID();
        ByteSequence key = bytes("/key-move/unmarked");
        long created = putOn(key, lease);

        assertThat(get(kv.markHolder(key, created, lease)).isSucceeded()).isTrue();

        KeyValue marked = read(key);
        assertThat(marked.getLease()).isEqualTo(lease);
        assertThat(marked.getValue().toString(StandardCharsets.UTF_8)).isEqualTo("holder");
    }
}
