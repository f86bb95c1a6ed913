package io.distlock.etcd.internal;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.api.Compare;
import io.etcd.jetcd.api.DeleteRangeRequest;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.RequestOp;
import io.etcd.jetcd.api.TxnRequest;
import io.etcd.jetcd.kv.DeleteResponse;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.lease.LeaseRevokeResponse;
import io.grpc.CallCredentials;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The lock's key-value requests ({@link Kv}) as plain gRPC unary calls on the channel of the
 * provider's jetcd client, with jetcd's call credentials ({@link ChannelTap}), answered on the gRPC
 * transport thread: jetcd's own path builds a retry policy per call and hands each answer through
 * two executors (gRPC's, then jetcd's pool) before the caller sees it. That is the fast path only:
 * a call that fails for any reason is made again through {@link JetcdKv} (its retries, endpoint
 * switching and auth-token refresh), within the caller's own time bound. Every request here may so
 * be made twice: the acquire transaction creates our key only if absent (a second one reads it
 * back), the holder mark and a key's move to another lease compare the key's create revision (a
 * second move puts the same value on the same lease), deletes and reads are idempotent.
 * Lease requests always take jetcd's path. Internal.
 */
final class DirectKv implements Kv {
    /** Answers complete our futures on the transport thread: nothing that runs on them blocks. */
    private static final Executor DIRECT = Runnable::run;

    private final ChannelTap tap;
    private final boolean needsCredentials;
    private final long timeoutNanos;
    private final JetcdKv jetcd;

    /**
     * @param needsCredentials whether jetcd authenticates (a user is set): no direct call is made
     *     until jetcd has made one with its credentials
     * @param jetcd the path for lease requests and for any direct call that fails
     */
    DirectKv(ChannelTap tap, boolean needsCredentials, long timeoutNanos, JetcdKv jetcd) {
        this.tap = tap;
        this.needsCredentials = needsCredentials;
        this.timeoutNanos = timeoutNanos;
        this.jetcd = jetcd;
    }

    @Override
    public CompletableFuture<TxnResponse> createOrRead(LockKeys lock, ByteSequence key, long leaseId) {
        return call(
                KVGrpc.getTxnMethod(),
                () -> {
                    ByteString k = ByteString.copyFrom(key.getBytes());
                    RangeRequest oldest = prefixRange(lock, RangeRequest.SortOrder.ASCEND, 1);
                    return TxnRequest.newBuilder()
                            .addCompare(createRevisionIs(k, 0))
                            .addSuccess(RequestOp.newBuilder()
                                    .setRequestPut(PutRequest.newBuilder()
                                            .setKey(k)
                                            .setValue(ByteString.EMPTY)
                                            .setLease(leaseId)))
                            .addSuccess(RequestOp.newBuilder().setRequestRange(oldest))
                            .addSuccess(RequestOp.newBuilder()
                                    .setRequestRange(prefixRange(lock, RangeRequest.SortOrder.DESCEND, 2)))
                            .addFailure(RequestOp.newBuilder()
                                    .setRequestRange(RangeRequest.newBuilder().setKey(k)))
                            .addFailure(RequestOp.newBuilder().setRequestRange(oldest))
                            .build();
                },
                r -> new TxnResponse(r, ByteSequence.EMPTY),
                () -> jetcd.createOrRead(lock, key, leaseId));
    }

    @Override
    public CompletableFuture<GetResponse> keysUpTo(LockKeys lock, long maxCreateRevision, boolean serializable) {
        return call(
                KVGrpc.getRangeMethod(),
                () -> RangeRequest.newBuilder()
                        .setKey(lock.rawPrefix)
                        .setRangeEnd(lock.rawPrefixEnd)
                        .setSerializable(serializable)
                        .setMaxCreateRevision(maxCreateRevision)
                        .setSortTarget(RangeRequest.SortTarget.CREATE)
                        .setSortOrder(RangeRequest.SortOrder.DESCEND)
                        .setLimit(3)
                        .setKeysOnly(true)
                        .build(),
                r -> new GetResponse(r, ByteSequence.EMPTY),
                () -> jetcd.keysUpTo(lock, maxCreateRevision, serializable));
    }

    @Override
    public CompletableFuture<TxnResponse> markHolder(ByteSequence key, long createRevision, long leaseId) {
        return call(
                KVGrpc.getTxnMethod(),
                () -> markIfCreatedAt(key, createRevision, true, put -> put.setIgnoreLease(true)),
                r -> new TxnResponse(r, ByteSequence.EMPTY),
                () -> jetcd.markHolder(key, createRevision, leaseId));
    }

    @Override
    public CompletableFuture<TxnResponse> moveKey(ByteSequence key, long createRevision, long leaseId) {
        return call(
                KVGrpc.getTxnMethod(),
                () -> markIfCreatedAt(key, createRevision, false, put -> put.setLease(leaseId)),
                r -> new TxnResponse(r, ByteSequence.EMPTY),
                () -> jetcd.moveKey(key, createRevision, leaseId));
    }

    /**
     * {@code If(createRevision(key) == createRevision[, value(key) == ""]) Then(put(key, mark))},
     * the put's lease set by {@code lease}.
     */
    private static TxnRequest markIfCreatedAt(
            ByteSequence key, long createRevision, boolean unmarkedOnly, UnaryOperator<PutRequest.Builder> lease) {
        ByteString k = ByteString.copyFrom(key.getBytes());
        TxnRequest.Builder txn = TxnRequest.newBuilder().addCompare(createRevisionIs(k, createRevision));
        if (unmarkedOnly) {
            txn.addCompare(Compare.newBuilder()
                    .setKey(k)
                    .setResult(Compare.CompareResult.EQUAL)
                    .setTarget(Compare.CompareTarget.VALUE)
                    .setValue(ByteString.EMPTY));
        }
        PutRequest.Builder put = PutRequest.newBuilder().setKey(k).setValue(HolderMark.VALUE);
        return txn.addSuccess(RequestOp.newBuilder().setRequestPut(lease.apply(put)))
                .build();
    }

    @Override
    public CompletableFuture<DeleteResponse> delete(ByteSequence key) {
        return call(
                KVGrpc.getDeleteRangeMethod(),
                () -> DeleteRangeRequest.newBuilder()
                        .setKey(ByteString.copyFrom(key.getBytes()))
                        .build(),
                r -> new DeleteResponse(r, ByteSequence.EMPTY),
                () -> jetcd.delete(key));
    }

    @Override
    public CompletableFuture<LeaseGrantResponse> grant(long ttlSeconds) {
        return jetcd.grant(ttlSeconds);
    }

    @Override
    public CompletableFuture<LeaseKeepAliveResponse> keepAliveOnce(long leaseId) {
        return jetcd.keepAliveOnce(leaseId);
    }

    @Override
    public CompletableFuture<LeaseRevokeResponse> revoke(long leaseId) {
        return jetcd.revoke(leaseId);
    }

    private static Compare createRevisionIs(ByteString key, long revision) {
        return Compare.newBuilder()
                .setKey(key)
                .setResult(Compare.CompareResult.EQUAL)
                .setTarget(Compare.CompareTarget.CREATE)
                .setCreateRevision(revision)
                .build();
    }

    /** Keys only under the lock's prefix, by create revision in {@code order}, at most {@code limit}. */
    private static RangeRequest prefixRange(LockKeys lock, RangeRequest.SortOrder order, int limit) {
        return RangeRequest.newBuilder()
                .setKey(lock.rawPrefix)
                .setRangeEnd(lock.rawPrefixEnd)
                .setSortTarget(RangeRequest.SortTarget.CREATE)
                .setSortOrder(order)
                .setLimit(limit)
                .setKeysOnly(true)
                .build();
    }

    /**
     * Sends {@code request} directly, or through {@code fallback} if there is no channel (or no
     * credentials) yet, or if the direct call fails.
     */
    private <Q, R, T> CompletableFuture<T> call(
            MethodDescriptor<Q, R> method,
            Supplier<Q> request,
            Function<R, T> wrap,
            Supplier<CompletableFuture<T>> fallback) {
        Channel ch = tap.channel();
        CallCredentials cred = tap.credentials();
        if (ch == null || (needsCredentials && cred == null)) {
            return fallback.get();
        }
        CallOptions opts =
                CallOptions.DEFAULT.withExecutor(DIRECT).withDeadlineAfter(timeoutNanos, TimeUnit.NANOSECONDS);
        if (cred != null) {
            opts = opts.withCallCredentials(cred);
        }
        CompletableFuture<T> out = new CompletableFuture<>();
        ClientCalls.asyncUnaryCall(ch.newCall(method, opts), request.get(), new StreamObserver<R>() {
            @Override
            public void onNext(R value) {
                out.complete(wrap.apply(value));
            }

            @Override
            public void onError(Throwable t) {
                if (out.isDone()) {
                    return; // the caller gave up (timeout, close)
                }
                // jetcd's path: its retries, another endpoint, a refreshed auth token
                try {
                    fallback.get().whenComplete((r, e) -> {
                        if (e != null) {
                            out.completeExceptionally(e);
                        } else {
                            out.complete(r);
                        }
                    });
                } catch (RuntimeException e) {
                    out.completeExceptionally(e);
                }
            }

            @Override
            public void onCompleted() {}
        });
        return out;
    }
}
