package io.distlock.testing.servers;

import java.util.Locale;

/**
 * How launchers start servers, chosen by system property {@code distlock.servers} (or environment
 * variable {@code DISTLOCK_SERVERS}).
 *
 * <ul>
 *   <li>{@code local} (default): local binaries from the Debian packages.
 *   <li>{@code docker}: containers through Testcontainers, with host networking on free loopback
 *       ports, for the kinds that support it (Redis standalone, etcd single member, PostgreSQL
 *       without TLS); other kinds still start locally. Images from {@code distlock.image.redis} (default {@value
 *       #DEFAULT_REDIS_IMAGE}), {@code distlock.image.etcd} (default {@value #DEFAULT_ETCD_IMAGE}) and
 *       {@code distlock.image.postgresql} (default {@value #DEFAULT_POSTGRES_IMAGE}).
 *   <li>{@code auto}: docker if Testcontainers is on the class path and a Docker engine answers,
 *       else local.
 * </ul>
 *
 * <p>Docker mode needs {@code org.testcontainers:testcontainers}, which lock-testing declares optional:
 * without it on the class path, docker mode fails with a {@link ServerStartException} naming the
 * artifact, and auto mode starts servers locally. Testcontainers classes are loaded only in docker
 * mode.
 */
public enum ServerMode {
    LOCAL,
    DOCKER,
    AUTO;

    /** System property choosing the mode. */
    public static final String PROPERTY = "distlock.servers";
    /** System property naming the Redis image for docker mode. */
    public static final String REDIS_IMAGE_PROPERTY = "distlock.image.redis";
    /** System property naming the etcd image for docker mode. */
    public static final String ETCD_IMAGE_PROPERTY = "distlock.image.etcd";
    /** System property naming the PostgreSQL image for docker mode. */
    public static final String POSTGRES_IMAGE_PROPERTY = "distlock.image.postgresql";
    /** The official Redis image. */
    public static final String DEFAULT_REDIS_IMAGE = "redis:7.0";
    /** The official etcd image. */
    public static final String DEFAULT_ETCD_IMAGE = "quay.io/coreos/etcd:v3.4.23";
    /** The official PostgreSQL 15 image. */
    public static final String DEFAULT_POSTGRES_IMAGE = "postgres:15";

    private static volatile Boolean dockerUsable;

    /** The configured mode. */
    public static ServerMode configured() {
        String value = System.getProperty(PROPERTY, System.getenv("DISTLOCK_SERVERS"));
        if (value == null || value.isBlank()) {
            return LOCAL;
        }
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    PROPERTY + " must be one of local, docker, auto (was '" + value + "')", e);
        }
    }

    /**
     * Whether servers that can run in containers should, under the configured mode.
     *
     * @throws ServerStartException in docker mode without Testcontainers on the class path
     */
    public static boolean useDocker() {
        switch (configured()) {
            case DOCKER:
                OptionalDependency.TESTCONTAINERS.require(PROPERTY + "=docker");
                return true;
            case AUTO:
                Boolean usable = dockerUsable;
                if (usable == null) {
                    usable = OptionalDependency.TESTCONTAINERS.isPresent() && DockerServers.isDockerUsable();
                    dockerUsable = usable;
                }
                return usable;
            default:
                return false;
        }
    }

    static String redisImage() {
        return System.getProperty(REDIS_IMAGE_PROPERTY, DEFAULT_REDIS_IMAGE);
    }

    static String etcdImage() {
        return System.getProperty(ETCD_IMAGE_PROPERTY, DEFAULT_ETCD_IMAGE);
    }

    static String postgresImage() {
        return System.getProperty(POSTGRES_IMAGE_PROPERTY, DEFAULT_POSTGRES_IMAGE);
    }
}
