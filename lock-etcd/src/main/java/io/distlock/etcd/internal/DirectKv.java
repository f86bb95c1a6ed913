package io.distlock.etcd.internal;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.api.DeleteRangeRequest;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.TxnRequest;
import io.etcd.jetcd.kv.DeleteResponse;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.grpc.CallCredentials;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The contender's KV requests as plain gRPC unary calls on the channel of the provider's jetcd
 * client, with jetcd's call credentials ({@link ChannelTap}), answered on the gRPC transport
 * thread: jetcd's own path builds a retry policy per call and hands each answer through two
 * executors (gRPC's, then jetcd's pool) before the caller sees it. That is the fast path only: a
 * call that fails for any reason is made again through jetcd (its retries, endpoint switching and
 * auth-token refresh), within the caller's own time bound. Every request here may be made twice:
 * the acquire transaction creates our key only if absent (a second one reads it back), deletes and
 * reads are idempotent. Internal.
 */
final class DirectKv {
    /** Answers complete our futures on the transport thread: nothing that runs on them blocks. */
    private static final Executor DIRECT = Runnable::run;

    private final ChannelTap tap;
    private final boolean needsCredentials;
    private final long timeoutNanos;

    DirectKv(ChannelTap tap, boolean needsCredentials, long timeoutNanos) {
        this.tap = tap;
        this.needsCredentials = needsCredentials;
        this.timeoutNanos = timeoutNanos;
    }

    CompletableFuture<TxnResponse> txn(Supplier<TxnRequest> request, Supplier<CompletableFuture<TxnResponse>> jetcd) {
        return call(KVGrpc.getTxnMethod(), request, r -> new TxnResponse(r, ByteSequence.EMPTY), jetcd);
    }

    CompletableFuture<GetResponse> range(
            Supplier<RangeRequest> request, Supplier<CompletableFuture<GetResponse>> jetcd) {
        return call(KVGrpc.getRangeMethod(), request, r -> new GetResponse(r, ByteSequence.EMPTY), jetcd);
    }

    CompletableFuture<DeleteResponse> delete(ByteSequence key, Supplier<CompletableFuture<DeleteResponse>> jetcd) {
        return call(
                KVGrpc.getDeleteRangeMethod(),
                () -> DeleteRangeRequest.newBuilder()
                        .setKey(ByteString.copyFrom(key.getBytes()))
                        .build(),
                r -> new DeleteResponse(r, ByteSequence.EMPTY),
                jetcd);
    }

    private <Q, R, T> CompletableFuture<T> call(
            MethodDescriptor<Q, R> method,
            Supplier<Q> request,
            java.util.function.Function<R, T> wrap,
            Supplier<CompletableFuture<T>> jetcd) {
        Channel ch = tap.channel();
        CallCredentials cred = tap.credentials();
        if (ch == null || (needsCredentials && cred == null)) {
            return jetcd.get();
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
                    jetcd.get().whenComplete((r, e) -> {
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
