package io.distlock.spi;

import java.util.List;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.event.Level;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * The log events of the engine: stable names, levels and keys, in one place (the same table is in
 * {@code docs/logging.md}). Every event is logged through SLF4J 2's fluent API by the logger {@code
 * io.distlock.spi.LockEngine}: its message is the event name followed by its {@code key=value}
 * pairs (for layouts that print only the message), and the same pairs are attached with {@link
 * LoggingEventBuilder#addKeyValue} (for structured encoders).
 *
 * <table>
 *   <caption>Events</caption>
 *   <tr><th>event</th><th>level</th><th>keys</th><th>when</th></tr>
 *   <tr><td>{@value #ATTEMPT}</td><td>TRACE</td><td>lock, backend, max_wait_ms</td><td>an
 *       acquisition starts ({@code max_wait_ms} 0 for a single try, -1 for no limit)</td></tr>
 *   <tr><td>{@value #ACQUIRED}</td><td>DEBUG</td><td>lock, backend, token, waited_ms</td><td>a
 *       lease was granted</td></tr>
 *   <tr><td>{@value #NOT_ACQUIRED}</td><td>DEBUG</td><td>lock, backend, waited_ms</td><td>the
 *       lock stayed held elsewhere for the whole wait</td></tr>
 *   <tr><td>{@value #ACQUIRE_FAILED}</td><td>DEBUG</td><td>lock, backend, error</td><td>an
 *       acquisition threw (the caller gets the exception)</td></tr>
 *   <tr><td>{@value #RELEASED}</td><td>DEBUG</td><td>lock, backend, token, held_ms,
 *       was_valid</td><td>a lease was released</td></tr>
 *   <tr><td>{@value #RENEWED}</td><td>TRACE</td><td>lock, backend, token</td><td>the watchdog
 *       extended a lease</td></tr>
 *   <tr><td>{@value #RENEWAL_FAILED}</td><td>WARN for the first failure in a row, then
 *       DEBUG</td><td>lock, backend, token, error</td><td>a renewal could not reach the server;
 *       the lease stays valid until its deadline</td></tr>
 *   <tr><td>{@value #LOST}</td><td>WARN; INFO when a cap ended the lease; DEBUG when the provider
 *       was closed or abandoned</td><td>lock, backend, token, reason</td><td>a lease was lost
 *       ({@link io.distlock.Lease#lost()} completes)</td></tr>
 *   <tr><td>{@value #CLOSE_RELEASE_FAILED}</td><td>DEBUG</td><td>lock, backend, error</td><td>a
 *       lease could not be released while the provider closed (it expires on the server)</td></tr>
 *   <tr><td>{@value #CLOSE_THREADS_STILL_RUNNING}</td><td>WARN</td><td>backend</td><td>the
 *       engine's threads did not stop within 5 s of {@code close()}</td></tr>
 *   <tr><td>{@value #ABANDON_DRIVER_CLOSE_FAILED}</td><td>DEBUG</td><td>backend, error</td><td>the
 *       driver failed to close during a simulated crash</td></tr>
 *   <tr><td>{@value #ABANDON_FAILED}</td><td>DEBUG</td><td>lock, backend, error</td><td>cleaning
 *       up after an attempt without the lock failed</td></tr>
 *   <tr><td>{@value #RELEASE_LATE_ACQUISITION_FAILED}</td><td>DEBUG</td><td>lock, backend,
 *       error</td><td>a lock granted with no validity left could not be given back</td></tr>
 *   <tr><td>{@value #OBSERVER_FAILED}</td><td>WARN</td><td>backend, error</td><td>a {@link
 *       io.distlock.LockObserver} threw</td></tr>
 *   <tr><td>{@value #TIMER_TASK_FAILED}</td><td>WARN</td><td>backend, error</td><td>an action
 *       on the engine's timer thread threw (a bug; the timer keeps running)</td></tr>
 * </table>
 *
 * <p>Guarantees: nothing is logged at INFO or above when a lock is acquired, released or renewed
 * (the hot path), only when something went wrong or a cap ended a lease. Values are lock names,
 * backend names, fencing tokens, durations in milliseconds, booleans, loss reasons and exception
 * class names — never a URI, a user name or a password. An attached exception's message is the
 * exception's own; distlock's exceptions never contain credentials ({@link io.distlock.LockException}).
 */
public final class LogEvents {
    private LogEvents() {}

    /** Key: the lock name. */
    public static final String LOCK = "lock";
    /** Key: the backend name ({@code redis}, {@code mem}, ...). */
    public static final String BACKEND = "backend";
    /** Key: the fencing token (absent when the backend has none). */
    public static final String TOKEN = "token";
    /** Key: how long the acquisition waited, in milliseconds. */
    public static final String WAITED_MS = "waited_ms";
    /** Key: the wait budget of an attempt in milliseconds (0: single try; -1: no limit). */
    public static final String MAX_WAIT_MS = "max_wait_ms";
    /** Key: how long the lease was held, in milliseconds. */
    public static final String HELD_MS = "held_ms";
    /** Key: whether the lease was still valid when released. */
    public static final String WAS_VALID = "was_valid";
    /** Key: why a lease was lost. */
    public static final String REASON = "reason";
    /** Key: the class name of the exception that caused the event. */
    public static final String ERROR = "error";

    public static final String ATTEMPT = "distlock.attempt";
    public static final String ACQUIRED = "distlock.acquired";
    public static final String NOT_ACQUIRED = "distlock.not_acquired";
    public static final String ACQUIRE_FAILED = "distlock.acquire_failed";
    public static final String RELEASED = "distlock.released";
    public static final String RENEWED = "distlock.renewed";
    public static final String RENEWAL_FAILED = "distlock.renewal_failed";
    public static final String LOST = "distlock.lost";
    public static final String CLOSE_RELEASE_FAILED = "distlock.close.release_failed";
    public static final String CLOSE_THREADS_STILL_RUNNING = "distlock.close.threads_still_running";
    public static final String ABANDON_DRIVER_CLOSE_FAILED = "distlock.abandon.driver_close_failed";
    public static final String ABANDON_FAILED = "distlock.abandon_failed";
    public static final String RELEASE_LATE_ACQUISITION_FAILED = "distlock.release_late_acquisition_failed";
    public static final String OBSERVER_FAILED = "distlock.observer_failed";
    public static final String TIMER_TASK_FAILED = "distlock.timer_task_failed";

    /** Every event name above. */
    public static final List<String> EVENTS = List.of(
            ATTEMPT,
            ACQUIRED,
            NOT_ACQUIRED,
            ACQUIRE_FAILED,
            RELEASED,
            RENEWED,
            RENEWAL_FAILED,
            LOST,
            CLOSE_RELEASE_FAILED,
            CLOSE_THREADS_STILL_RUNNING,
            ABANDON_DRIVER_CLOSE_FAILED,
            ABANDON_FAILED,
            RELEASE_LATE_ACQUISITION_FAILED,
            OBSERVER_FAILED,
            TIMER_TASK_FAILED);

    /** Every key above. */
    public static final List<String> KEYS =
            List.of(LOCK, BACKEND, TOKEN, WAITED_MS, MAX_WAIT_MS, HELD_MS, WAS_VALID, REASON, ERROR);

    /**
     * Logs {@code event} at {@code level} with {@code keysAndValues} (key, value, key, value, ...;
     * a {@code null} or empty {@link OptionalLong} value leaves its key out) and {@code error} (may
     * be {@code null}). Does nothing if the level is disabled; callers on the hot path check the
     * level first, so that not even the argument array is built.
     */
    public static void log(Logger logger, Level level, String event, Throwable error, Object... keysAndValues) {
        if (!logger.isEnabledForLevel(level)) {
            return;
        }
        LoggingEventBuilder b = logger.atLevel(level);
        StringBuilder message = new StringBuilder(event);
        for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
            String key = (String) keysAndValues[i];
            Object value = keysAndValues[i + 1];
            if (value instanceof OptionalLong) {
                OptionalLong o = (OptionalLong) value;
                value = o.isPresent() ? (Object) o.getAsLong() : null;
            }
            if (value == null) {
                continue;
            }
            b = b.addKeyValue(key, value);
            message.append(' ').append(key).append('=').append(value);
        }
        if (error != null) {
            b = b.setCause(error);
        }
        b.log(message.toString());
    }

    /** The class name of {@code e}, for the {@link #ERROR} key. */
    static String errorName(Throwable e) {
        return e.getClass().getName();
    }
}
