package io.distlock.postgresql.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;

/**
 * Internal: the driver's {@code sslfactory} for a TLS context the provider built (from a trust
 * store or a caller's {@link SSLContext}). The driver instantiates it by class name with the
 * connection's properties; {@value #PROPERTY} names the context, which the provider registers while
 * it is open. The driver still checks the host name ({@code sslmode=verify-full}).
 */
public final class ContextSocketFactory extends SSLSocketFactory {
    /** The connection property naming the registered context. */
    static final String PROPERTY = "distlockTlsContext";

    private static final Map<String, SSLContext> CONTEXTS = new ConcurrentHashMap<>();
    private static final AtomicLong IDS = new AtomicLong();

    private final SSLSocketFactory delegate;

    /** Called by the driver with the connection's properties. */
    public ContextSocketFactory(Properties info) {
        String id = info.getProperty(PROPERTY);
        SSLContext context = id == null ? null : CONTEXTS.get(id);
        if (context == null) {
            throw new IllegalStateException("no TLS context registered as '" + id + "' (the provider was closed)");
        }
        this.delegate = context.getSocketFactory();
    }

    /** Registers {@code context}; the returned id goes into the connection properties. */
    static String register(SSLContext context) {
        String id = "ctx-" + IDS.incrementAndGet();
        CONTEXTS.put(id, context);
        return id;
    }

    static void unregister(String id) {
        CONTEXTS.remove(id);
    }

    @Override
    public String[] getDefaultCipherSuites() {
        return delegate.getDefaultCipherSuites();
    }

    @Override
    public String[] getSupportedCipherSuites() {
        return delegate.getSupportedCipherSuites();
    }

    @Override
    public Socket createSocket(Socket s, String host, int port, boolean autoClose) throws IOException {
        return delegate.createSocket(s, host, port, autoClose);
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return delegate.createSocket(host, port);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return delegate.createSocket(host, port, localHost, localPort);
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return delegate.createSocket(host, port);
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return delegate.createSocket(address, port, localAddress, localPort);
    }
}
