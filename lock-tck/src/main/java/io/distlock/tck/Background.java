package io.distlock.tck;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A rule's task on its own thread (so it can be interrupted); see {@link TckSupport#background}. */
record Background<T>(Thread thread, CompletableFuture<T> result) {

    /** The result, or the task's own exception, within {@code bound}. */
    T get(Duration bound) throws Exception {
        return get(bound, "");
    }

    /**
     * The result, or the task's own exception, within {@code bound}; {@code what} (the rule id and
     * the task) starts the message if it does not finish in time.
     */
    T get(Duration bound, String what) throws Exception {
        try {
            return result.get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception x) {
                throw x;
            }
            throw e;
        } catch (TimeoutException e) {
            throw new AssertionError(
                    (what.isEmpty() ? "" : what + ": ") + "task on thread " + thread.getName()
                            + " did not finish within " + bound + " (state " + thread.getState() + ")",
                    e);
        }
    }
}
