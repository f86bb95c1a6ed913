package io.distlock.tck;

import java.util.Objects;
import java.util.Optional;

/**
 * Thrown by a {@link TckFixture} hook the fixture does not implement; the rule is then skipped, and
 * the compatibility report shows the hook and, if given, the reason.
 */
public final class UnsupportedHookException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String hook;
    private final String reason;

    /** The fixture does not implement {@code hook}. */
    public UnsupportedHookException(String hook) {
        super("fixture does not support the '" + hook + "' hook");
        this.hook = hook;
        this.reason = null;
    }

    /**
     * The fixture cannot implement {@code hook} for the given reason (for example "the in-JVM
     * provider has no credentials"), which the report shows with the skipped rule.
     */
    public UnsupportedHookException(String hook, String reason) {
        super("fixture does not support the '" + hook + "' hook: " + Objects.requireNonNull(reason, "reason"));
        this.hook = hook;
        this.reason = reason;
    }

    /** The hook's method name. */
    public String hook() {
        return hook;
    }

    /** Why the fixture does not support the hook, if it said. */
    public Optional<String> reason() {
        return Optional.ofNullable(reason);
    }
}
