package io.distlock.etcd.internal;

import io.grpc.CallCredentials;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The gRPC interceptor on a client the provider builds: it gives every unary call a deadline
 * (jetcd sets none) and remembers the channel below it and the call credentials jetcd attaches
 * (its auth token, refreshed by jetcd), so that the driver can open its one shared watch stream
 * ({@link WatchStream}) on the same connection, with the same endpoints, TLS and authentication
 * as jetcd's own calls, and send the direct requests of {@link DirectKv} on it. jetcd 0.8 opens one
 * gRPC stream per watcher and exposes neither its channel nor its token.
 *
 * <p>It also reports a refusal no retry can fix ({@link Rpc#isDefinitiveRefusal}: wrong
 * credentials, a server certificate the trust rejects) the moment one of jetcd's calls ends with it,
 * so that a caller waiting for a request learns it at once instead of after jetcd's retries.
 * Internal.
 */
final class ChannelTap implements ClientInterceptor {
    private final long deadlineNanos;
    private volatile Channel channel;
    private volatile CallCredentials credentials;
    private volatile Consumer<Throwable> refusals = t -> {};

    ChannelTap(Duration requestTimeout) {
        this.deadlineNanos = requestTimeout.toNanos();
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions callOptions, Channel next) {
        if (channel == null) {
            channel = next;
        }
        CallCredentials c = callOptions.getCredentials();
        if (c != null && credentials == null) {
            credentials = c; // jetcd's stubs all share one AuthCredential (its Authenticate call has none)
        }
        if (method.getType() == MethodDescriptor.MethodType.UNARY && callOptions.getDeadline() == null) {
            callOptions = callOptions.withDeadlineAfter(deadlineNanos, TimeUnit.NANOSECONDS);
        }
        return new RefusalReporting<>(next.newCall(method, callOptions));
    }

    /** Tells {@code refusals} of every jetcd call that ends with a definitive refusal. */
    void onRefusal(Consumer<Throwable> refusals) {
        this.refusals = refusals;
    }

    private final class RefusalReporting<Q, R> extends ForwardingClientCall.SimpleForwardingClientCall<Q, R> {
        RefusalReporting(ClientCall<Q, R> call) {
            super(call);
        }

        @Override
        public void start(Listener<R> listener, Metadata headers) {
            super.start(
                    new ForwardingClientCallListener.SimpleForwardingClientCallListener<R>(listener) {
                        @Override
                        public void onClose(Status status, Metadata trailers) {
                            if (!status.isOk() && Rpc.isDefinitiveRefusal(status.asRuntimeException())) {
                                refusals.accept(status.asRuntimeException());
                            }
                            super.onClose(status, trailers);
                        }
                    },
                    headers);
        }
    }

    /** The channel below the interceptors, once jetcd has made a call; else null. */
    Channel channel() {
        return channel;
    }

    /** jetcd's call credentials (the auth token), once a call with them was made; else null. */
    CallCredentials credentials() {
        return credentials;
    }
}
