package io.distlock.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Lowers the calling thread to Linux's {@code SCHED_IDLE} policy ({@code chrt --idle}), so that a
 * spinning thread keeps its core awake without taking CPU time from any other thread or process:
 * the scheduler runs it only when nothing else wants the core, and preempts it at once when
 * something does.
 */
final class SpinnerPriority {
    /** The policy name {@link #lowerToIdle()} answers when it lowered the thread. */
    static final String SCHED_IDLE = "SCHED_IDLE";

    /** The policy name {@link #lowerToIdle()} answers when the thread kept its normal priority. */
    static final String NORMAL = "normal";

    private SpinnerPriority() {}

    /**
     * Moves the calling thread to {@code SCHED_IDLE}; returns the policy it runs with: {@code
     * "SCHED_IDLE"}, or {@code "normal"} where that is not possible (not Linux, no {@code chrt}).
     */
    static String lowerToIdle() {
        try {
            // "/proc/thread-self" links to "<pid>/task/<tid>" of the calling thread
            Path self = Files.readSymbolicLink(Path.of("/proc/thread-self"));
            String tid = self.getFileName().toString();
            Process p = new ProcessBuilder("chrt", "--idle", "-p", "0", tid)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return NORMAL;
            }
            return p.exitValue() == 0 ? SCHED_IDLE : NORMAL;
        } catch (IOException | UnsupportedOperationException e) {
            return NORMAL;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return NORMAL;
        }
    }
}
