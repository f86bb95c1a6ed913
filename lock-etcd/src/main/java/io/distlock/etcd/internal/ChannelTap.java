package io.distlock.etcd.internal;

import io.grpc.CallCredentials;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC interceptor on a client the provider builds: it gives every unary call a deadline
 * (jetcd sets none) and remembers the channel below it and the call credentials jetcd attaches
 * (its auth token, refreshed by jetcd), so that the driver can open its one shared watch stream
 * ({@link WatchStream}) on the same connection, with the same endpoints, TLS and authentication
 * as jetcd's own calls. jetcd 0.8 opens one gRPC stream per watcher and exposes neither its
 * channel nor its token. Internal; public only for {@code EtcdLockProvider}.
 */
public final class ChannelTap implements ClientInterceptor {
    private final long deadlineNanos;
    private volatile Channel channel;
    private volatile CallCredentials credentials;

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
        return next.newCall(method, callOptions);
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
