package io.distlock.spi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Marker;
import org.slf4j.event.KeyValuePair;
import org.slf4j.event.Level;
import org.slf4j.event.LoggingEvent;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.LoggingEventAware;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * lock-api's SLF4J binding in tests: every logger is enabled at every level and, while a {@link
 * Capture} is open, records each event with its level, message and key-value pairs. Found by SLF4J
 * through {@code META-INF/services/org.slf4j.spi.SLF4JServiceProvider} in the test resources.
 */
public final class CapturingSlf4jProvider implements SLF4JServiceProvider {
    private static final List<Capture> CAPTURES = new CopyOnWriteArrayList<>();

    private final ILoggerFactory loggers = CapturingLogger::new;
    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final MDCAdapter mdc = new NOPMDCAdapter();

    /** One recorded event. */
    public record Event(String logger, Level level, String message, Map<String, Object> keyValues, Throwable error) {
        /** The first word of the message: the event name. */
        public String name() {
            int space = message.indexOf(' ');
            return space < 0 ? message : message.substring(0, space);
        }
    }

    /** Records events until closed. */
    public static final class Capture implements AutoCloseable {
        private final List<Event> events = new CopyOnWriteArrayList<>();

        public List<Event> events() {
            return new ArrayList<>(events);
        }

        @Override
        public void close() {
            CAPTURES.remove(this);
        }
    }

    /** Starts recording every event logged from now on. */
    public static Capture capture() {
        Capture c = new Capture();
        CAPTURES.add(c);
        return c;
    }

    @Override
    public ILoggerFactory getLoggerFactory() {
        return loggers;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return "2.0.99";
    }

    @Override
    public void initialize() {}

    private static void record(Event e) {
        for (Capture c : CAPTURES) {
            c.events.add(e);
        }
    }

    private static final class CapturingLogger extends AbstractLogger implements LoggingEventAware {
        private static final long serialVersionUID = 1L;

        CapturingLogger(String name) {
            this.name = name;
        }

        @Override
        public void log(LoggingEvent event) {
            Map<String, Object> kv = new LinkedHashMap<>();
            if (event.getKeyValuePairs() != null) {
                for (KeyValuePair p : event.getKeyValuePairs()) {
                    kv.put(p.key, p.value);
                }
            }
            String message = MessageFormatter.basicArrayFormat(
                    event.getMessage(), event.getArgumentArray() == null ? new Object[0] : event.getArgumentArray());
            record(new Event(name, event.getLevel(), message, kv, event.getThrowable()));
        }

        @Override
        protected void handleNormalizedLoggingCall(
                Level level, Marker marker, String messagePattern, Object[] arguments, Throwable throwable) {
            String message =
                    MessageFormatter.basicArrayFormat(messagePattern, arguments == null ? new Object[0] : arguments);
            record(new Event(name, level, message, Map.of(), throwable));
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        public boolean isTraceEnabled() {
            return true;
        }

        @Override
        public boolean isTraceEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isDebugEnabled() {
            return true;
        }

        @Override
        public boolean isDebugEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isInfoEnabled() {
            return true;
        }

        @Override
        public boolean isInfoEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isWarnEnabled() {
            return true;
        }

        @Override
        public boolean isWarnEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isErrorEnabled() {
            return true;
        }

        @Override
        public boolean isErrorEnabled(Marker marker) {
            return true;
        }
    }
}
