package io.distlock.tck;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What a library logged while the capture was open, for tests that check that no secret (a
 * password, a token) reaches a log line: everything written to {@code System.err} (where
 * slf4j-simple, the test binding, writes) and every {@code java.util.logging} record at every level
 * (gRPC and parts of ZooKeeper log there). Output still reaches the real {@code System.err}.
 *
 * <pre>{@code
 * try (LogCapture logs = LogCapture.start()) {
 *     assertThatThrownBy(() -> open(uriWithWrongPassword)).satisfies(e ->
 *             assertThat(LogCapture.fullText(e)).doesNotContain(password));
 *     assertThat(logs.text()).doesNotContain(password);
 * }
 * }</pre>
 *
 * Replaces {@code System.err} process-wide while open: do not run such tests in parallel with
 * others that do the same. Log lines below the logging binding's configured level are never
 * produced, so they are not checked.
 */
public final class LogCapture implements AutoCloseable {
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final StringBuffer jul = new StringBuffer();
    private final PrintStream originalErr = System.err;
    private final Logger root = Logger.getLogger("");
    private final Level originalLevel = root.getLevel();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord r) {
            jul.append(r.getLevel())
                    .append(' ')
                    .append(r.getLoggerName())
                    .append(' ')
                    .append(r.getMessage())
                    .append(' ')
                    .append(r.getParameters() == null ? "" : Arrays.toString(r.getParameters()));
            if (r.getThrown() != null) {
                jul.append(' ').append(fullText(r.getThrown()));
            }
            jul.append('\n');
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    private LogCapture() {
        System.setErr(new PrintStream(new TeeStream(originalErr, err), true, StandardCharsets.UTF_8));
        handler.setLevel(Level.ALL);
        root.addHandler(handler);
        root.setLevel(Level.ALL);
    }

    /** Starts capturing until {@link #close()}. */
    public static LogCapture start() {
        return new LogCapture();
    }

    /** Runs {@code action} while capturing and returns what was logged meanwhile. */
    public static String during(Runnable action) {
        try (LogCapture c = start()) {
            action.run();
            return c.text();
        }
    }

    /**
     * The whole text an exception would show anywhere: its stack trace with every message, cause
     * and suppressed exception.
     */
    public static String fullText(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }

    /** Everything captured so far. */
    public String text() {
        return err.toString(StandardCharsets.UTF_8) + "\n" + jul;
    }

    /** Restores {@code System.err} and the java.util.logging root level. */
    @Override
    public void close() {
        System.setErr(originalErr);
        root.removeHandler(handler);
        root.setLevel(originalLevel);
    }

    private static final class TeeStream extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        TeeStream(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public synchronized void write(int x) throws IOException {
            a.write(x);
            b.write(x);
        }

        @Override
        public synchronized void write(byte[] buf, int off, int len) throws IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }
    }
}
