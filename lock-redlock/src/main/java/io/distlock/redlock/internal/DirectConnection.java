package io.distlock.redlock.internal;

import io.distlock.redis.core.Scripts;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.util.List;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisSocketFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * A plain-TCP connection to one node that the calling thread writes to and reads from itself (no
 * I/O thread hop): {@link #send} writes a script request and flushes it; {@link #ready} says,
 * without blocking, whether the reply has started to arrive (bytes in the socket's receive buffer,
 * {@code FIONREAD}); {@link #read} reads it. Jedis's {@link Connection} does the connection set-up
 * (authentication, {@code CLIENT SETNAME}, database) and the protocol. At most one request is
 * outstanding at a time, so the input buffer of the Jedis connection is empty between replies and
 * the socket's byte count is the whole truth. Not thread-safe: one user at a time (the pool hands it
 * out to one round).
 */
final class DirectConnection implements AutoCloseable {
    private final Connection connection;
    private final InputStream in;

    private DirectConnection(Connection connection, Socket socket) throws IOException {
        this.connection = connection;
        this.in = socket.getInputStream();
    }

    /** Opens a connection (blocking: connect, handshake); call off the rounds' threads. */
    static DirectConnection open(HostAndPort address, JedisClientConfig config) {
        DefaultJedisSocketFactory plain = new DefaultJedisSocketFactory(address, config);
        Socket[] socket = new Socket[1];
        Connection c = new Connection(
                () -> {
                    Socket s = plain.createSocket();
                    socket[0] = s;
                    return s;
                },
                config);
        try {
            c.connect(); // no-op if the constructor already connected
            return new DirectConnection(c, socket[0]);
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e instanceof RuntimeException r ? r : new java.io.UncheckedIOException((IOException) e);
        }
    }

    /**
     * Writes {@code EVALSHA script keys args} and flushes it.
     *
     * @throws JedisConnectionException if the connection is closed or broken (never reconnected
     *     here: Jedis would open a new socket that {@link #ready} does not watch)
     */
    void send(Scripts.Script script, List<String> keys, List<String> args) {
        if (!usable()) {
            throw new JedisConnectionException("direct connection is closed or broken");
        }
        CommandArguments a =
                new CommandArguments(Protocol.Command.EVALSHA).add(script.sha()).add(keys.size());
        for (String k : keys) {
            a.key(k);
        }
        for (String v : args) {
            a.add(v);
        }
        connection.sendCommand(a);
        connection.getMany(0); // flushes, reads nothing
    }

    /** Whether the reply (or an end of stream) can be read now; an I/O error counts as ready. */
    boolean ready() {
        try {
            return in.available() > 0;
        } catch (IOException e) {
            return true; // the read reports it
        }
    }

    /**
     * Reads the reply (blocking, at most the socket timeout), decoded as Jedis's {@code evalsha}
     * decodes it. A script error ({@code NOSCRIPT}, ...) is thrown as {@code JedisDataException} and
     * leaves the connection usable; an I/O error as {@code JedisConnectionException}.
     */
    Object read() {
        return BuilderFactory.AGGRESSIVE_ENCODED_OBJECT.build(connection.getUnflushedObject());
    }

    /** Whether the connection is still usable. */
    boolean usable() {
        return connection.isConnected() && !connection.isBroken();
    }

    @Override
    public void close() {
        connection.close();
    }
}
