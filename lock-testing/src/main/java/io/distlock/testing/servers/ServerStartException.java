package io.distlock.testing.servers;

/**
 * A test server could not be started: a binary is missing (the message names the Debian package
 * and {@code scripts/install-servers.sh}), it did not become ready in time (the message holds the
 * end of its log), or Docker is not usable in docker mode.
 */
public class ServerStartException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** With a message saying what failed and what to do. */
    public ServerStartException(String message) {
        super(message);
    }

    /** With a message and the cause. */
    public ServerStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
