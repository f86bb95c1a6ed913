package io.distlock.testing.servers;

/**
 * A dependency that lock-testing declares {@code <optional>}: TCK users have it only if they add it to
 * their own build. Checked by class name before the code that needs it is loaded, so that its
 * absence gives a message naming the artifact rather than a {@link NoClassDefFoundError}.
 */
final class OptionalDependency {
    /** Docker mode ({@link DockerServers}). */
    static final OptionalDependency TESTCONTAINERS =
            new OptionalDependency("org.testcontainers:testcontainers", "org.testcontainers.DockerClientFactory");

    private final String artifact;
    private final String className;

    OptionalDependency(String artifact, String className) {
        this.artifact = artifact;
        this.className = className;
    }

    /** Whether the dependency's marker class can be loaded by lock-testing's class loader. */
    boolean isPresent() {
        try {
            Class.forName(className, false, OptionalDependency.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Throws a {@link ServerStartException} naming the artifact and {@code user} if it is absent. */
    void require(String user) {
        if (!isPresent()) {
            throw missing(artifact, user);
        }
    }

    /** The exception for {@code artifact} missing when {@code user} needs it. */
    static ServerStartException missing(String artifact, String user) {
        return new ServerStartException(message(artifact, user));
    }

    /** What {@link #missing} says. */
    static String message(String artifact, String user) {
        return user + " needs " + artifact + " on the class path; lock-testing declares it optional, so add it to"
                + " your build (test scope) — see lock-testing's README, \"Optional dependencies\"";
    }
}
