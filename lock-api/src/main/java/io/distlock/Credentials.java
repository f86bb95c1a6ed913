package io.distlock;

import java.util.Objects;
import java.util.Optional;

/**
 * A user name and password for a backend, the same block on every backend that authenticates with
 * one: Redis and Redlock ({@code AUTH}, ACL users), ZooKeeper (digest), etcd (user/password) and
 * MySQL. Immutable; {@link #toString()} never shows the password.
 *
 * <p>Wrong credentials are a configuration error on every backend: the provider throws {@link
 * LockConfigurationException} at once (when it opens, or on the first request for backends that
 * connect lazily) and never retries them as an outage.
 *
 * <pre>{@code
 * RedisLockOptions.builder().credentials(Credentials.of("app", System.getenv("REDIS_PASSWORD")))
 * }</pre>
 *
 * @param username the user, or {@code null} where the backend has a default user (Redis's {@code
 *     default} user, {@link #password(String)})
 * @param password the password; never {@code null}, may be empty where the backend allows it
 */
public record Credentials(String username, String password) {

    public Credentials {
        Objects.requireNonNull(password, "password must not be null");
        if (username != null && username.isEmpty()) {
            throw new IllegalArgumentException("username must not be empty (use Credentials.password(...) for none)");
        }
    }

    /** A user name and its password. */
    public static Credentials of(String username, String password) {
        Objects.requireNonNull(username, "username must not be null");
        return new Credentials(username, password);
    }

    /** A password for the backend's default user (Redis {@code AUTH <password>}). */
    public static Credentials password(String password) {
        return new Credentials(null, password);
    }

    /** The user name, empty for the backend's default user. */
    public Optional<String> user() {
        return Optional.ofNullable(username);
    }

    /** Redacted: shows the user name, never the password. */
    @Override
    public String toString() {
        return "Credentials{username=" + (username == null ? "(default)" : username) + ", password=****}";
    }
}
