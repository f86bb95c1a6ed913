package io.distlock.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
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
 * <p>While open, <b>every logger logs at TRACE</b>: the {@code java.util.logging} root at {@code
 * ALL}, and, when slf4j-simple is the SLF4J binding (as in every distlock module's tests), every
 * SLF4J logger — distlock's and the client libraries' own ({@code redis.clients}, {@code
 * org.apache.zookeeper}, {@code org.apache.curator}, {@code io.etcd}, {@code io.grpc}, {@code
 * io.netty}, {@code com.zaxxer.hikari}, …), including loggers created during the capture and those
 * a {@code simplelogger.properties} sets to a higher level. slf4j-simple has no API to change
 * levels, so this is done by reflection on its fields ({@link #slf4jTraceEnabled()} says whether it
 * worked); {@link #close()} restores every level. A library that reads its logger's level once,
 * when its class is initialised, keeps what it read then.
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
    private final Slf4jSimpleLevels slf4j = Slf4jSimpleLevels.trace();
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
     * A whole client session with every logger at TRACE, for credential-leak tests: opens a provider,
     * acquires and releases {@code lockName}, closes the provider, then runs {@code more} (say, a
     * refused login), and returns everything logged meanwhile. Fails if the loggers could not be
     * lowered to TRACE, if the lock was not taken and released, or if none of distlock's TRACE lines
     * were captured (the capture would then prove nothing).
     */
    public static String wholeSessionAtTrace(
            java.util.function.Supplier<? extends io.distlock.LockProvider> open, String lockName, Runnable more) {
        String logged;
        try (LogCapture logs = start()) {
            if (!logs.slf4jTraceEnabled()) {
                throw new AssertionError(
                        "the SLF4J loggers (distlock's and the client library's) could not be" + " lowered to TRACE");
            }
            io.distlock.LockProvider p = open.get();
            io.distlock.Lease lease = p.lock(lockName)
                    .tryAcquire()
                    .orElseThrow(() -> new AssertionError("lock '" + lockName + "' was not acquired"));
            if (!lease.release()) {
                throw new AssertionError("lock '" + lockName + "' was not released");
            }
            p.close();
            more.run();
            logged = logs.text();
        }
        if (!logged.contains("TRACE io.distlock")) {
            throw new AssertionError("no TRACE line of distlock was captured");
        }
        return logged;
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

    /**
     * Whether SLF4J loggers log at TRACE during this capture (slf4j-simple is the binding and its
     * levels could be lowered); {@code false} means only INFO and above of SLF4J loggers reach the
     * capture (plus all {@code java.util.logging} records).
     */
    public boolean slf4jTraceEnabled() {
        return slf4j != null;
    }

    /**
     * The forms in which a secret may show up in a log line: as is, URL-encoded, as hex (lower and
     * upper case, as byte dumps of HTTP/2 frames or ZooKeeper packets print it), and Base64 (as
     * HTTP basic authentication carries it).
     */
    public static List<String> encodings(String secret) {
        byte[] bytes = secret.getBytes(StandardCharsets.UTF_8);
        StringBuilder hex = new StringBuilder();
        for (byte b : bytes) {
            hex.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
        }
        return List.of(
                secret,
                URLEncoder.encode(secret, StandardCharsets.UTF_8),
                hex.toString(),
                hex.toString().toUpperCase(Locale.ROOT),
                Base64.getEncoder().withoutPadding().encodeToString(bytes));
    }

    /**
     * Asserts that {@code text} contains none of the {@link #encodings(String) encodings} of
     * {@code secret}, naming the form found (never the secret itself).
     */
    public static void assertNoSecret(String text, String secret) {
        String t = text.replace(" ", "");
        List<String> forms = encodings(secret);
        String[] names = {"plain", "URL-encoded", "hex", "HEX", "Base64"};
        for (int i = 0; i < forms.size(); i++) {
            if (text.contains(forms.get(i)) || t.contains(forms.get(i))) {
                int at = text.indexOf(forms.get(i));
                throw new AssertionError("a secret appears " + names[i] + " in the captured text"
                        + (at < 0
                                ? ""
                                : " at offset " + at + ", after: "
                                        + text.substring(Math.max(0, at - 160), at)
                                                .replace(secret, "<secret>")));
            }
        }
    }

    /** Restores {@code System.err}, the java.util.logging root level and the SLF4J levels. */
    @Override
    public void close() {
        System.setErr(originalErr);
        root.removeHandler(handler);
        root.setLevel(originalLevel);
        if (slf4j != null) {
            slf4j.restore();
        }
    }

    /**
     * Lowers every slf4j-simple logger to TRACE and restores it, by reflection (slf4j-simple has no
     * level API). Null when the binding is not slf4j-simple or its fields are not as expected.
     */
    private static final class Slf4jSimpleLevels {
        private static final String PREFIX = "org.slf4j.simpleLogger.log.";
        private static final Object LOCK = new Object();
        private static int openCaptures; // guarded by LOCK; nested captures restore at the last close
        private static Slf4jSimpleLevels active; // guarded by LOCK

        private final Map<String, Integer> savedLevels = new HashMap<>();
        private final Map<String, String> savedProperties = new HashMap<>();
        private final Object config;
        private final Field defaultLevel;
        private final Field currentLevel;
        private final Map<?, ?> loggers;
        private final int savedDefault;

        private Slf4jSimpleLevels(Object config, Field defaultLevel, Field currentLevel, Map<?, ?> loggers)
                throws ReflectiveOperationException {
            this.config = config;
            this.defaultLevel = defaultLevel;
            this.currentLevel = currentLevel;
            this.loggers = loggers;
            this.savedDefault = defaultLevel.getInt(config);
        }

        static Slf4jSimpleLevels trace() {
            synchronized (LOCK) {
                if (active != null) {
                    openCaptures++;
                    return active;
                }
                try {
                    Object factory = org.slf4j.LoggerFactory.getILoggerFactory();
                    if (!factory.getClass().getName().equals("org.slf4j.simple.SimpleLoggerFactory")) {
                        return null;
                    }
                    ClassLoader cl = factory.getClass().getClassLoader();
                    Class<?> loggerClass = Class.forName("org.slf4j.simple.SimpleLogger", true, cl);
                    Class<?> configClass = Class.forName("org.slf4j.simple.SimpleLoggerConfiguration", true, cl);
                    Field configField = loggerClass.getDeclaredField("CONFIG_PARAMS");
                    configField.setAccessible(true);
                    Object config = configField.get(null);
                    Field defaultLevel = configClass.getDeclaredField("defaultLogLevel");
                    defaultLevel.setAccessible(true);
                    Field currentLevel = loggerClass.getDeclaredField("currentLogLevel");
                    currentLevel.setAccessible(true);
                    Field mapField = factory.getClass().getDeclaredField("loggerMap");
                    mapField.setAccessible(true);
                    Field propsField = configClass.getDeclaredField("properties");
                    propsField.setAccessible(true);
                    Slf4jSimpleLevels levels = new Slf4jSimpleLevels(
                            config, defaultLevel, currentLevel, (Map<?, ?>) mapField.get(factory));
                    levels.lower((Properties) propsField.get(config));
                    active = levels;
                    openCaptures = 1;
                    return levels;
                } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                    return null;
                }
            }
        }

        /** TRACE (0) as the default, for every per-logger setting and every existing logger. */
        private void lower(Properties fileProperties) throws ReflectiveOperationException {
            Set<String> keys = new HashSet<>(fileProperties.stringPropertyNames());
            keys.addAll(System.getProperties().stringPropertyNames());
            for (String key : keys) {
                if (key.startsWith(PREFIX)) {
                    savedProperties.put(key, System.getProperty(key));
                    System.setProperty(key, "trace");
                }
            }
            defaultLevel.setInt(config, 0);
            for (Map.Entry<?, ?> e : loggers.entrySet()) {
                if (currentLevel.getDeclaringClass().isInstance(e.getValue())) {
                    savedLevels.put((String) e.getKey(), currentLevel.getInt(e.getValue()));
                    currentLevel.setInt(e.getValue(), 0);
                }
            }
        }

        void restore() {
            synchronized (LOCK) {
                if (--openCaptures > 0) {
                    return;
                }
                active = null;
                try {
                    for (Map.Entry<String, String> p : savedProperties.entrySet()) {
                        if (p.getValue() == null) {
                            System.clearProperty(p.getKey());
                        } else {
                            System.setProperty(p.getKey(), p.getValue());
                        }
                    }
                    defaultLevel.setInt(config, savedDefault);
                    Method compute =
                            currentLevel.getDeclaringClass().getDeclaredMethod("recursivelyComputeLevelString");
                    compute.setAccessible(true);
                    Method toLevel = config.getClass().getDeclaredMethod("stringToLevel", String.class);
                    toLevel.setAccessible(true);
                    for (Map.Entry<?, ?> e : loggers.entrySet()) {
                        Object logger = e.getValue();
                        if (!currentLevel.getDeclaringClass().isInstance(logger)) {
                            continue;
                        }
                        Integer saved = savedLevels.get((String) e.getKey());
                        if (saved == null) { // created during the capture: the level it would have had
                            String s = (String) compute.invoke(logger);
                            saved = s == null ? savedDefault : (Integer) toLevel.invoke(null, s);
                        }
                        currentLevel.setInt(logger, saved);
                    }
                } catch (ReflectiveOperationException | RuntimeException e) {
                    throw new IllegalStateException("could not restore the slf4j-simple log levels", e);
                }
            }
        }
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
