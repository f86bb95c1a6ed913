package io.distlock.compare;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Forces and detects the {@link MachineMode}: a spinner thread that keeps one core busy in the fast
 * mode (parked, never waking, in the idle mode), and a wake-up probe that detects the mode a
 * measurement ran in. The probe times a round trip between this thread and a parked echo thread,
 * each side parked while the other runs, with a pause before each sample so that idle vCPUs can
 * halt: a few microseconds when a vCPU is awake for the woken thread, several times that when a
 * halted one has to be roused. Calibrated with the spinner on at the start of a run; a probe more
 * than twice that (and 10 µs more) reads as idle.
 *
 * <p>Threads {@code distlock-compare-spinner} and {@code distlock-compare-wake-up-echo}, daemons,
 * stopped by {@link #close()}.
 */
final class MachineModes implements AutoCloseable {
    /** Environment key of the probe's p50 with the spinner on, measured at the start. */
    static final String FAST_REFERENCE = "machine_modes.wake_up_fast_p50_us";
    /** Environment key of the probe's p50 with nothing added, measured at the start. */
    static final String IDLE_REFERENCE = "machine_modes.wake_up_idle_p50_us";
    /** Environment key of the probe's p50 above which a measurement reads as run in the idle mode. */
    static final String IDLE_ABOVE = "machine_modes.idle_above_us";

    /** Environment key of the spinner's scheduling policy: {@code SCHED_IDLE} or {@code normal}. */
    static final String SPINNER_POLICY = "machine_modes.spinner_policy";

    /** Values of every measurement: the probe's p50 just before and just after it. */
    static final String BEFORE = "wake_up_before_p50_us";

    static final String AFTER = "wake_up_after_p50_us";

    private static final int SAMPLES = 25;
    private static final long PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(300);
    private static final long SETTLE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final Thread spinner;
    private final Thread echo;
    private volatile boolean spin;
    private volatile boolean closed;
    private volatile Thread caller;
    private volatile long request;
    private volatile long reply;
    private MachineMode current = MachineMode.IDLE;
    /** The spinner's scheduling policy ({@link SpinnerPriority}), set before {@link #start()} returns. */
    private volatile String spinnerPolicy = SpinnerPriority.NORMAL;

    private final CountDownLatch spinnerReady = new CountDownLatch(1);

    private MachineModes() {
        spinner = new Thread(this::spinWhenAsked, "distlock-compare-spinner");
        echo = new Thread(this::echo, "distlock-compare-wake-up-echo");
        spinner.setDaemon(true);
        echo.setDaemon(true);
    }

    static MachineModes start() {
        MachineModes m = new MachineModes();
        m.spinner.start();
        m.echo.start();
        try {
            m.spinnerReady.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return m;
    }

    /** Puts the machine in {@code mode} (null: idle) and lets it settle. */
    void enter(MachineMode mode) {
        MachineMode m = mode == null ? MachineMode.IDLE : mode;
        if (m == current) {
            return;
        }
        current = m;
        spin = m == MachineMode.FAST;
        LockSupport.unpark(spinner);
        LockSupport.parkNanos(SETTLE_NANOS);
    }

    /** Measures the probe in both modes and records the references in {@code environment}. */
    void calibrate(Map<String, String> environment) {
        enter(MachineMode.FAST);
        double fast = median(probe(), probe(), probe());
        enter(MachineMode.IDLE);
        double idle = median(probe(), probe(), probe());
        environment.put(FAST_REFERENCE, Figures.fmt("%.1f", fast));
        environment.put(IDLE_REFERENCE, Figures.fmt("%.1f", idle));
        environment.put(IDLE_ABOVE, Figures.fmt("%.1f", idleAbove(fast)));
        environment.put(SPINNER_POLICY, spinnerPolicy);
    }

    /** The probe's p50 in µs over {@value #SAMPLES} round trips. */
    double probe() {
        caller = Thread.currentThread();
        long[] nanos = new long[SAMPLES];
        for (int i = 0; i < nanos.length; i++) {
            LockSupport.parkNanos(PAUSE_NANOS); // idle vCPUs may halt, as between a client's requests
            long n = request + 1;
            long t0 = System.nanoTime();
            request = n;
            LockSupport.unpark(echo);
            while (reply != n) {
                LockSupport.park(this);
            }
            nanos[i] = System.nanoTime() - t0;
        }
        return Latencies.p50(nanos);
    }

    /** The probe's p50 above which a measurement reads as run in the idle mode, given the fast reference. */
    static double idleAbove(double fastReference) {
        return Math.max(2 * fastReference, fastReference + 10);
    }

    /**
     * The mode {@code m} ran in, from its probes before and after and the run's threshold: "idle",
     * "fast", "mixed" (one of each), or "" when the measurement or the run has no probe.
     */
    static String detected(Measurement m, Map<String, String> environment) {
        String threshold = environment.get(IDLE_ABOVE);
        if (threshold == null || m.value(BEFORE).isEmpty() || m.value(AFTER).isEmpty()) {
            return "";
        }
        double above = Double.parseDouble(threshold);
        boolean before = m.value(BEFORE).getAsDouble() > above;
        boolean after = m.value(AFTER).getAsDouble() > above;
        return before == after ? (before ? "idle" : "fast") : "mixed";
    }

    private static double median(double a, double b, double c) {
        double[] v = {a, b, c};
        Arrays.sort(v);
        return v[1];
    }

    private void echo() {
        long seen = 0;
        while (!closed) {
            long r = request;
            if (r == seen) {
                LockSupport.park(this);
                continue;
            }
            seen = r;
            reply = r;
            Thread c = caller;
            if (c != null) {
                LockSupport.unpark(c);
            }
        }
    }

    private void spinWhenAsked() {
        if (!Boolean.getBoolean("distlock.compare.spinnerNormalPriority")) {
            spinnerPolicy = SpinnerPriority.lowerToIdle();
        }
        spinnerReady.countDown();
        while (!closed) {
            if (spin) {
                Thread.onSpinWait();
            } else {
                LockSupport.park(this); // no timed wake-ups: the idle mode must stay idle
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        spin = false;
        LockSupport.unpark(spinner);
        LockSupport.unpark(echo);
        try {
            spinner.join(1_000);
            echo.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
