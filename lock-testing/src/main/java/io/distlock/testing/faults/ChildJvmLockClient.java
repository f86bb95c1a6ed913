package io.distlock.testing.faults;

import io.distlock.testing.servers.SupervisedProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A lock client in a child JVM ({@link LockClientMain}), so a test can {@code kill -9} or SIGSTOP a
 * real lock holder: the GC-pause scenario of the Redlock debate, made executable.
 *
 * <pre>{@code
 * try (ChildJvmLockClient holder = ChildJvmLockClient.start("redis://" + redis.address())) {
 *     long token = holder.acquire("orders", Duration.ofSeconds(1)).token().getAsLong();
 *     holder.pause();                    // stops renewing: the lease expires on the server
 *     ... another client acquires and writes with a newer token ...
 *     holder.resume();
 *     assertThat(holder.write(db.jdbcUrl(), db.user(), db.password(), "orders").accepted()).isFalse();
 * }
 * }</pre>
 *
 * The child runs with this JVM's {@code java} and class path; it dies when this JVM dies (see
 * {@link SupervisedProcess}). Each command waits for its answer at most the given timeout and then
 * throws {@link NoAnswerException}; a late answer is skipped, so later commands stay in step.
 */
public final class ChildJvmLockClient implements AutoCloseable {
    /** Default time to wait for an answer. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private static final String EOF = "\u0000EOF";

    private final SupervisedProcess process;
    private final Path dir;
    private final OutputStream stdin;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    private final Thread reader;
    private int lateAnswers;

    /** No answer within the timeout (the child is paused, hung or dead). */
    public static final class NoAnswerException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NoAnswerException(String message) {
            super(message);
        }
    }

    /** The answer to ACQUIRE. */
    public record Acquisition(boolean acquired, OptionalLong token) {}

    /** The answer to WRITE: accepted, or rejected as stale with the newest accepted token. */
    public record WriteResult(boolean accepted, OptionalLong lastAccepted) {}

    private ChildJvmLockClient(SupervisedProcess process, Path dir) {
        this.process = process;
        this.dir = dir;
        this.stdin = process.stdin();
        this.reader = new Thread(this::readLoop, "distlock-childjvm-" + process.pid() + "-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts a child on {@code providerUri} with this JVM's class path; waits until it is READY. */
    public static ChildJvmLockClient start(String providerUri) {
        return start(providerUri, System.getProperty("java.class.path"), List.of(), DEFAULT_TIMEOUT);
    }

    /**
     * Starts a child.
     *
     * @param providerUri passed to {@code LockProviders.open}
     * @param classPath the child's class path (lock-testing, lock-api and the backend module)
     * @param jvmOptions extra JVM options, e.g. {@code -Dorg.slf4j.simpleLogger.defaultLogLevel=debug}
     * @param startTimeout how long to wait for READY
     */
    public static ChildJvmLockClient start(
            String providerUri, String classPath, List<String> jvmOptions, Duration startTimeout) {
        Objects.requireNonNull(providerUri, "providerUri must not be null");
        Objects.requireNonNull(classPath, "classPath must not be null");
        Path dir;
        try {
            dir = Files.createTempDirectory("distlock-childjvm-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for the child JVM", e);
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx128m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(LockClientMain.class.getName());
        SupervisedProcess p =
                SupervisedProcess.start("lock-client-jvm", cmd, dir, dir.resolve("child.log"), true, dir, Map.of());
        ChildJvmLockClient client = new ChildJvmLockClient(p, dir);
        try {
            // the URI may carry a password: stdin, not the command line (visible to every user in ps)
            client.send(providerUri);
            String ready = client.next(startTimeout, "READY");
            if (!ready.startsWith("READY ")) {
                throw new IllegalStateException(
                        "child JVM said '" + ready + "' instead of READY. Log:\n" + p.logTail(3000));
            }
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
        return client;
    }

    private void readLoop() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.stdout(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                answers.add(line);
            }
        } catch (IOException e) {
            // child gone
        }
        answers.add(EOF);
    }

    private synchronized void send(String line) {
        try {
            stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException e) {
            throw new NoAnswerException("child JVM " + process.pid() + " does not accept commands: " + e);
        }
    }

    private synchronized String command(String line, Duration timeout) {
        send(line);
        String verb = line.split(" ", 2)[0];
        return next(timeout, verb);
    }

    private synchronized String next(Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                String answer = left <= 0 ? answers.poll() : answers.poll(left, TimeUnit.NANOSECONDS);
                if (answer == null) {
                    lateAnswers++;
                    throw new NoAnswerException("child JVM " + process.pid() + " did not answer " + what + " within "
                            + timeout.toMillis() + " ms");
                }
                if (answer.equals(EOF)) {
                    answers.add(EOF);
                    throw new NoAnswerException(
                            "child JVM " + process.pid() + " exited. Log:\n" + process.logTail(3000));
                }
                if (lateAnswers > 0) {
                    lateAnswers--;
                    continue;
                }
                if (answer.startsWith("ERROR ")) {
                    throw new IllegalStateException(
                            "child JVM " + process.pid() + " failed " + what + ": " + answer.substring(6));
                }
                return answer;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NoAnswerException("interrupted while waiting for child JVM " + process.pid());
        }
    }

    /** ACQUIRE with {@link #DEFAULT_TIMEOUT} plus {@code maxWait}. */
    public Acquisition acquire(String lockName, Duration maxWait) {
        return acquire(lockName, maxWait, DEFAULT_TIMEOUT.plus(maxWait));
    }

    /** Tries to acquire {@code lockName} in the child, waiting up to {@code maxWait} there. */
    public Acquisition acquire(String lockName, Duration maxWait, Duration timeout) {
        if (lockName == null || lockName.isEmpty() || lockName.contains(" ") || lockName.contains("\n")) {
            throw new IllegalArgumentException("lockName must be non-empty without spaces (was '" + lockName + "')");
        }
        String a = command("ACQUIRE " + lockName + " " + maxWait.toMillis(), timeout);
        if (a.equals("NOT_ACQUIRED")) {
            return new Acquisition(false, OptionalLong.empty());
        }
        String t = a.substring("ACQUIRED ".length());
        return new Acquisition(true, t.equals("none") ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(t)));
    }

    /** Whether the child's lease is valid, as the child sees it. */
    public boolean isValid() {
        return isValid(DEFAULT_TIMEOUT);
    }

    /** {@link #isValid()} with a timeout. */
    public boolean isValid(Duration timeout) {
        return command("VALID", timeout).equals("VALID true");
    }

    /** Releases the child's lease; true if it still held it. */
    public boolean release() {
        return release(DEFAULT_TIMEOUT);
    }

    /** {@link #release()} with a timeout. */
    public boolean release(Duration timeout) {
        return command("RELEASE", timeout).equals("RELEASED true");
    }

    /**
     * A guarded write with the child's current fencing token (see {@link LockClientMain}). The child
     * needs a JDBC driver for {@code jdbcUrl} on its class path: for {@code jdbc:mysql:} (as {@link
     * io.distlock.testing.servers.MariaDbServer#jdbcUrl()}) add {@code com.mysql:mysql-connector-j},
     * which lock-testing declares optional; without one the write fails with a message saying so.
     */
    public WriteResult write(String jdbcUrl, String user, String password, String resource) {
        return write(jdbcUrl, user, password, resource, DEFAULT_TIMEOUT);
    }

    /** {@link #write(String, String, String, String)} with a timeout. */
    public WriteResult write(String jdbcUrl, String user, String password, String resource, Duration timeout) {
        for (String arg : List.of(jdbcUrl, user, password, resource)) {
            if (arg.isEmpty() || arg.contains(" ") || arg.contains("\n")) {
                throw new IllegalArgumentException(
                        "write arguments must be non-empty without spaces (was '" + arg + "')");
            }
        }
        String a = command("WRITE " + jdbcUrl + " " + user + " " + password + " " + resource, timeout);
        if (a.equals("WRITE_OK")) {
            return new WriteResult(true, OptionalLong.empty());
        }
        return new WriteResult(false, OptionalLong.of(Long.parseLong(a.substring("WRITE_STALE ".length()))));
    }

    /** The child JVM's pid. */
    public long pid() {
        return process.pid();
    }

    /** Whether the child JVM process exists (a paused one does). */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL: the child releases nothing. */
    public void kill() {
        process.kill();
    }

    /** SIGSTOP: the child stops renewing and answering (a long GC pause). */
    public void pause() {
        process.pause();
    }

    /** SIGCONT. */
    public void resume() {
        process.resume();
    }

    /** The child's stderr log so far. */
    public String log() {
        return process.logTail(20_000);
    }

    /** Kills the child and deletes its directory. */
    @Override
    public void close() {
        process.close();
        try {
            reader.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // best effort
        }
    }
}
