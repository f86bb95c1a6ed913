package io.distlock.tck;

/** Thrown by a {@link TckFixture} hook the fixture does not implement; the rule is then skipped. */
public final class UnsupportedHookException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String hook;

    public UnsupportedHookException(String hook) {
        super("fixture does not support the '" + hook + "' hook");
        this.hook = hook;
    }

    /** The hook's method name. */
    public String hook() {
        return hook;
    }
}
