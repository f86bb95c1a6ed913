package io.distlock.mysql;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Captures what is logged while it is open: everything written to {@code System.err} (where
 * slf4j-simple writes) and every java.util.logging record (gRPC logs there), at all levels.
 */
final class LogCapture implements AutoCloseable {
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
                    .append(r.getParameters() == null ? "" : java.util.Arrays.toString(r.getParameters()));
            if (r.getThrown() != null) {
                jul.append(' ').append(MySqlSecurityIT.fullText(r.getThrown()));
            }
            jul.append('\n');
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    LogCapture() {
        System.setErr(new PrintStream(new TeeStream(originalErr, err), true, StandardCharsets.UTF_8));
        handler.setLevel(Level.ALL);
        root.addHandler(handler);
        root.setLevel(Level.ALL);
    }

    /** Everything captured so far. */
    String text() {
        return err.toString(StandardCharsets.UTF_8) + "\n" + jul;
    }

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
        public synchronized void write(int x) throws java.io.IOException {
            a.write(x);
            b.write(x);
        }

        @Override
        public synchronized void write(byte[] buf, int off, int len) throws java.io.IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }
    }
}
