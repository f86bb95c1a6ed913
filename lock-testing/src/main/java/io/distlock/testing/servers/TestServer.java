package io.distlock.testing.servers;

/**
 * A real server started for a test: a local process (the default) or a container.
 *
 * <p>Every server listens on a free port of 127.0.0.1, keeps its files in its own temporary
 * directory, answered a real request before the launcher returned it, and is stopped by {@link
 * #close()}. Local processes also die when the test JVM dies, even by {@code kill -9}: a small
 * watcher next to each server kills it within about a second and removes its directory.
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.start()) {
 *     String uri = "redis://" + redis.address();
 *     redis.pause();   // SIGSTOP: requests hang
 *     redis.resume();  // SIGCONT
 * }
 * }</pre>
 *
 * <p>Faults are real signals: {@link #kill()} loses everything not yet on disk (test speed mode
 * writes nothing to disk), {@link #pause()} freezes the process with its connections open.
 */
public interface TestServer extends AutoCloseable {

    /** The address clients connect to, always {@code 127.0.0.1}. */
    String host();

    /** The client port; stable across {@link #restart(boolean)}. */
    int port();

    /** {@code host:port}. */
    default String address() {
        return host() + ":" + port();
    }

    /**
     * The operating-system process id of the server process (for a container, the host pid of its
     * main process).
     *
     * @throws IllegalStateException if the server is not running
     */
    long pid();

    /** Whether the server process exists (a paused process is running). */
    boolean isRunning();

    /** Kills the server with SIGKILL and waits until the process is gone. Idempotent. */
    void kill();

    /** Freezes the server with SIGSTOP; its sockets stay open and requests hang. */
    void pause();

    /** Undoes {@link #pause()} with SIGCONT. */
    void resume();

    /**
     * Stops the server if it runs (SIGKILL) and starts it again on the same port and directory,
     * waiting until it answers.
     *
     * @param keepData {@code true} to keep what the server persisted (only what it wrote to disk
     *     survives: durable mode for Redis), {@code false} to start from an empty data directory
     * @throws UnsupportedOperationException where a topology cannot do it
     */
    void restart(boolean keepData);

    /** Stops the server and deletes its directory. Idempotent. */
    @Override
    void close();
}
