package io.distlock.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.DeleteResponse;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.lease.LeaseRevokeResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.util.concurrent.CompletableFuture;

/** The lock's requests ({@link Kv}) through jetcd's own API. Internal. */
final class JetcdKv implements Kv {
    private static final GetOption OLDEST = GetOption.builder()
            .isPrefix(true)
            .withSortField(GetOption.SortTarget.CREATE)
            .withSortOrder(GetOption.SortOrder.ASCEND)
            .withLimit(1)
            .withKeysOnly(true)
            .build();
    private static final GetOption NEWEST_TWO = GetOption.builder()
            .isPrefix(true)
            .withSortField(GetOption.SortTarget.CREATE)
            .withSortOrder(GetOption.SortOrder.DESCEND)
            .withLimit(2)
            .withKeysOnly(true)
            .build();

    private static final ByteSequence MARK = ByteSequence.from(HolderMark.VALUE.toByteArray());

    private final Client client;

    JetcdKv(Client client) {
        this.client = client;
    }

    @Override
    public CompletableFuture<TxnResponse> createOrRead(LockKeys lock, ByteSequence key, long leaseId) {
        Op oldest = Op.get(lock.prefix, OLDEST);
        return client.getKVClient()
                .txn()
                .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(
                        Op.put(
                                key,
                                ByteSequence.EMPTY,
                                PutOption.builder().withLeaseId(leaseId).build()),
                        oldest,
                        Op.get(lock.prefix, NEWEST_TWO))
                .Else(Op.get(key, GetOption.DEFAULT), oldest)
                .commit();
    }

    @Override
    public CompletableFuture<GetResponse> keysUpTo(LockKeys lock, long maxCreateRevision, boolean serializable) {
        return client.getKVClient()
                .get(
                        lock.prefix,
                        GetOption.builder()
                                .withSerializable(serializable)
                                .isPrefix(true)
                                .withMaxCreateRevision(maxCreateRevision)
                                .withSortField(GetOption.SortTarget.CREATE)
                                .withSortOrder(GetOption.SortOrder.DESCEND)
                                .withLimit(3)
                                .withKeysOnly(true)
                                .build());
    }

    @Override
    public CompletableFuture<TxnResponse> markHolder(ByteSequence key, long createRevision, long leaseId) {
        // jetcd 0.8's PutOption has no ignoreLease: the put names the key's own lease instead
        return client.getKVClient()
                .txn()
                .If(
                        new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(createRevision)),
                        new Cmp(key, Cmp.Op.EQUAL, CmpTarget.value(ByteSequence.EMPTY)))
                .Then(Op.put(key, MARK, PutOption.builder().withLeaseId(leaseId).build()))
                .commit();
    }

    @Override
    public CompletableFuture<TxnResponse> moveKey(ByteSequence key, long createRevision, long leaseId) {
        return client.getKVClient()
                .txn()
                .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(createRevision)))
                .Then(Op.put(key, MARK, PutOption.builder().withLeaseId(leaseId).build()))
                .commit();
    }

    @Override
    public CompletableFuture<DeleteResponse> delete(ByteSequence key) {
        return client.getKVClient().delete(key);
    }

    @Override
    public CompletableFuture<LeaseGrantResponse> grant(long ttlSeconds) {
        return client.getLeaseClient().grant(ttlSeconds);
    }

    @Override
    public CompletableFuture<LeaseKeepAliveResponse> keepAliveOnce(long leaseId) {
        return client.getLeaseClient().keepAliveOnce(leaseId);
    }

    @Override
    public CompletableFuture<LeaseRevokeResponse> revoke(long leaseId) {
        return client.getLeaseClient().revoke(leaseId);
    }
}
