package io.distlock.testing.servers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A child process that cannot outlive the test JVM.
 *
 * <p>The command runs under a small {@code sh} wrapper that polls the JVM's pid ({@code kill -0})
 * twice a second; when the JVM is gone (even after {@code kill -9}) the wrapper kills the command
 * with SIGKILL and, if asked, deletes a directory. A JVM shutdown hook kills every live supervised
 * process (and deletes its directory) on a normal exit as well. {@code PR_SET_PDEATHSIG} is not used: it fires when the
 * spawning <em>thread</em> ends, and Java spawns from arbitrary threads.
 *
 * <p>{@link #pid()} is the pid of the command itself (not of the wrapper), so signals reach the
 * server directly: {@link #pause()} (SIGSTOP) and {@link #resume()} (SIGCONT) work as expected.
 *
 * <p>Output: the command's stderr (and its stdout unless {@code pipeStdout}) is appended to the log
 * file. With {@code pipeStdout}, {@link #stdout()} and {@link #stdin()} are the command's own.
 */
public final class SupervisedProcess implements AutoCloseable {

    private static final String WRAPPER = String.join(
            "\n",
            "jvm=$1; log=$2; mode=$3; clean=$4; shift 4",
            "exec 3<&0",
            "if [ \"$mode\" = pipe ]; then \"$@\" 0<&3 3<&- 2>>\"$log\" &",
            "else \"$@\" </dev/null 3<&- >>\"$log\" 2>&1 &",
            "fi",
            "child=$!",
            "exec 3<&-",
            "echo \"pid $child\" >&2",
            "( while kill -0 \"$jvm\" 2>/dev/null; do",
            "    kill -0 \"$child\" 2>/dev/null || exit 0",
            "    sleep 0.5",
            "  done",
            "  kill -9 \"$child\" 2>/dev/null",
            "  n=0; while kill -0 \"$child\" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n+1)); done",
            "  if [ -n \"$clean\" ]; then rm -rf \"$clean\"; fi",
            ") </dev/null >/dev/null 2>&1 &",
            "wait \"$child\"",
            "exit $?");

    private static final Set<SupervisedProcess> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            for (SupervisedProcess p : LIVE) {
                                p.handle.ifPresent(ProcessHandle::destroyForcibly);
                            }
                            for (SupervisedProcess p : LIVE) {
                                p.awaitExit(Duration.ofSeconds(2));
                                if (p.cleanDir != null) {
                                    ServerDirs.deleteQuietly(p.cleanDir);
                                }
                            }
                        },
                        "distlock-servers-shutdown"));
    }

    private final String name;
    private final Process wrapper;
    private final long pid;
    /**
     * The command's process as seen when it started: signals go through it (or are sent only while
     * it is alive), never to a bare pid, which the system reuses once the command has exited (on a
     * busy machine within minutes) — a late {@link #kill()} must not hit another process.
     */
    private final Optional<ProcessHandle> handle;

    private final Path log;
    private final Path cleanDir;

    private SupervisedProcess(String name, Process wrapper, long pid, Path log, Path cleanDir) {
        this.name = name;
        this.wrapper = wrapper;
        this.pid = pid;
        this.handle = ProcessHandle.of(pid);
        this.log = log;
        this.cleanDir = cleanDir;
    }

    /** Whether the command itself (not another process that got its pid later) is running. */
    private boolean commandAlive() {
        return handle.map(ProcessHandle::isAlive).orElse(false);
    }

    /**
     * Starts {@code command} with its output appended to {@code log}.
     *
     * @param name a short name for messages
     * @param command the program and its arguments
     * @param workDir the working directory
     * @param log the file that receives the command's stderr (and stdout unless piped)
     * @param pipeStdout whether the command's stdin/stdout are connected to this JVM
     * @param cleanOnJvmDeath a directory to delete when the JVM dies before {@link #close()}, or
     *     null
     * @param env extra environment variables
     */
    public static SupervisedProcess start(
            String name,
            List<String> command,
            Path workDir,
            Path log,
            boolean pipeStdout,
            Path cleanOnJvmDeath,
            Map<String, String> env) {
        Objects.requireNonNull(name, "name must not be null");
        if (command == null || command.isEmpty()) {
            throw new IllegalArgumentException("command must not be null or empty");
        }
        List<String> full = new ArrayList<>();
        full.add("/bin/sh");
        full.add("-c");
        full.add(WRAPPER);
        full.add("distlock-supervisor");
        full.add(Long.toString(ProcessHandle.current().pid()));
        full.add(log.toString());
        full.add(pipeStdout ? "pipe" : "log");
        full.add(cleanOnJvmDeath == null ? "" : cleanOnJvmDeath.toString());
        full.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(full).directory(workDir.toFile());
        pb.environment().putAll(env);
        if (!pipeStdout) {
            pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        }
        Process wrapper;
        try {
            Files.createDirectories(log.getParent());
            wrapper = pb.start();
        } catch (IOException e) {
            throw new ServerStartException("cannot start " + name + ": " + e.getMessage(), e);
        }
        long pid;
        try {
            BufferedReader err =
                    new BufferedReader(new InputStreamReader(wrapper.getErrorStream(), StandardCharsets.UTF_8));
            String line = err.readLine();
            if (line == null || !line.startsWith("pid ")) {
                wrapper.destroyForcibly();
                throw new ServerStartException("cannot start " + name + ": supervisor said '" + line + "'");
            }
            pid = Long.parseLong(line.substring(4).trim());
        } catch (IOException e) {
            wrapper.destroyForcibly();
            throw new ServerStartException("cannot start " + name + ": " + e.getMessage(), e);
        }
        SupervisedProcess p = new SupervisedProcess(name, wrapper, pid, log, cleanOnJvmDeath);
        LIVE.add(p);
        wrapper.onExit().thenRun(() -> LIVE.remove(p));
        return p;
    }

    /** The pid of the command (not of its supervisor). */
    public long pid() {
        return pid;
    }

    /** The log file. */
    public Path log() {
        return log;
    }

    /** Whether the command has not exited yet (a stopped process is alive). */
    public boolean isAlive() {
        return wrapper.isAlive();
    }

    /** The command's stdout, when started with {@code pipeStdout}. */
    public InputStream stdout() {
        return wrapper.getInputStream();
    }

    /** The command's stdin, when started with {@code pipeStdout}. */
    public OutputStream stdin() {
        return wrapper.getOutputStream();
    }

    /**
     * SIGSTOP; returns once every thread of the command is stopped (read from {@code
     * /proc/<pid>/task/<tid>/stat}, at most 5 s): {@code kill -STOP} returns when the signal is sent,
     * and a thread that is running at that moment may still finish what it was doing, e.g. answer a
     * request that had just arrived.
     */
    public void pause() {
        signal("STOP");
        awaitStopped(Duration.ofSeconds(5));
    }

    private void awaitStopped(Duration bound) {
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        long deadline = System.nanoTime() + bound.toNanos();
        while (Files.isDirectory(tasks) && !allStopped(tasks) && System.nanoTime() - deadline < 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(100_000);
        }
    }

    /** Whether every thread under {@code tasks} is stopped (or gone); false if it cannot tell. */
    private static boolean allStopped(Path tasks) {
        try (java.util.stream.Stream<Path> threads = Files.list(tasks)) {
            return threads.allMatch(t -> {
                try {
                    String stat = Files.readString(t.resolve("stat"), StandardCharsets.US_ASCII);
                    // "<tid> (<comm>) <state> ...": comm may contain spaces and parentheses
                    int end = stat.lastIndexOf(')');
                    char state = end >= 0 && end + 2 < stat.length() ? stat.charAt(end + 2) : '?';
                    return state == 'T' || state == 't' || state == 'Z' || state == 'X';
                } catch (IOException gone) {
                    return true; // the thread ended
                }
            });
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }

    /** SIGCONT. */
    public void resume() {
        signal("CONT");
    }

    /**
     * SIGKILL, then waits (up to 10 s) until the command is gone. Idempotent: once the command has
     * exited, nothing is sent (its pid may belong to another process by then).
     */
    public void kill() {
        handle.ifPresent(ProcessHandle::destroyForcibly);
        awaitExit(Duration.ofSeconds(10));
    }

    /**
     * SIGTERM, waits up to {@code grace} for the command to exit, then SIGKILL.
     *
     * @return whether it exited within the grace period
     */
    public boolean stop(Duration grace) {
        handle.ifPresent(ProcessHandle::destroy);
        if (awaitExit(grace)) {
            return true;
        }
        kill();
        return false;
    }

    /** Waits for the command to exit; true if it did within {@code timeout}. */
    public boolean awaitExit(Duration timeout) {
        try {
            return wrapper.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !wrapper.isAlive();
        }
    }

    /** The last {@code maxChars} characters of the log, for failure messages. */
    public String logTail(int maxChars) {
        return tail(log, maxChars);
    }

    static String tail(Path file, int maxChars) {
        try {
            if (!Files.exists(file)) {
                return "(no log)";
            }
            String s = Files.readString(file, StandardCharsets.UTF_8);
            return s.length() <= maxChars ? s : "..." + s.substring(s.length() - maxChars);
        } catch (IOException | UncheckedIOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    /** Sends {@code SIG<signal>} to the command. */
    public void signal(String signal) {
        if (!wrapper.isAlive() || !commandAlive()) {
            throw new IllegalStateException(name + " (pid " + pid + ") is not running");
        }
        if (!signalQuietly(signal)) {
            throw new IllegalStateException("kill -" + signal + " " + pid + " failed for " + name);
        }
    }

    private boolean signalQuietly(String signal) {
        if (!commandAlive()) {
            return false;
        }
        try {
            Process k = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return k.waitFor(10, TimeUnit.SECONDS) && k.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Kills the command and waits for it. */
    @Override
    public void close() {
        kill();
        LIVE.remove(this);
    }

    @Override
    public String toString() {
        return name + " (pid " + pid + ")";
    }
}
