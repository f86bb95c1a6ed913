package io.distlock.spi;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.event.Level;

/**
 * The engine's renewal ticks: when each lease's next renewal is due, and which leases are renewed
 * together.
 *
 * <p>A renewal is due {@code interval} after the previous one (or the acquisition), rounded down to a
 * grid that every lease of the engine shares: the engine's renewal interval (halved until it is no
 * longer than the lease's own interval), and half of that for a lease's first renewal, which so comes
 * due at least half an interval after the acquisition (arming a lease then does not wake the timer
 * thread). Renewing early is always safe (the new validity counts from the request), and it makes
 * leases come due at the same readings: the timer thread runs all renewal tasks of one reading in
 * one pass, each adds its lease to the pending batch, and after the pass the whole batch goes to the
 * watchdog thread as one task, which renews it with one {@link BatchRenewal#renewAll} call.
 *
 * <p>So every lease is renewed at most one interval after its previous renewal (or half an interval
 * to one interval after its acquisition), and leases of the engine's lease time that are held on
 * fall into step: one batch per renewal interval for any number of them, plus at most one for those
 * acquired during it.
 */
final class RenewalBatches {
    private final LockEngine engine;
    private final BatchRenewal renewal;
    /** Ticker reading all grids are aligned to. */
    private final long origin;
    /** The grid step for leases of the engine's own lease time: its renewal interval (≥ 1). */
    private final long grid;
    /** Leases whose renewal came due in the timer thread's current pass; only that thread touches it. */
    private List<EngineLease> pending = new ArrayList<>();

    RenewalBatches(LockEngine engine, BatchRenewal renewal, long origin, long renewalIntervalNanos) {
        this.engine = engine;
        this.renewal = renewal;
        this.origin = origin;
        this.grid = Math.max(1, renewalIntervalNanos);
    }

    /**
     * The ticker reading at which a renewal {@code intervalNanos} after {@code now} is due: {@code
     * now + interval} rounded down to the grid, or to half the grid for a lease's {@code first}
     * renewal ({@link Deadlines#NEVER} if that overflows).
     */
    long dueAt(long now, long intervalNanos, boolean first) {
        long due = Deadlines.after(now, intervalNanos);
        if (due == Deadlines.NEVER) {
            return due;
        }
        long longest = first ? intervalNanos / 2 : intervalNanos;
        long step = grid;
        while (step > 1 && step > longest) {
            step >>= 1; // a power-of-two fraction of the grid: its readings include the grid's
        }
        return due - Math.floorMod(due - origin, step);
    }

    /** On the timer thread: {@code lease}'s renewal is due; it is renewed with this pass's batch. */
    void add(EngineLease lease) {
        pending.add(lease);
    }

    /** On the timer thread after each pass: hands the pass's batch to the watchdog thread. */
    void flush() {
        if (pending.isEmpty()) {
            return;
        }
        List<EngineLease> batch = pending;
        pending = new ArrayList<>();
        engine.watchdog().execute(() -> renew(batch));
    }

    /** On the watchdog thread: renews the batch's leases that still need it, with one driver call. */
    private void renew(List<EngineLease> batch) {
        List<EngineLease> leases = new ArrayList<>(batch.size());
        List<HeldLock> held = new ArrayList<>(batch.size());
        for (EngineLease lease : batch) {
            if (lease.beforeRenewal()) {
                leases.add(lease);
                held.add(lease.held());
            }
        }
        if (leases.isEmpty()) {
            return;
        }
        List<RenewalOutcome> outcomes = renewAll(held);
        for (int i = 0; i < leases.size(); i++) {
            leases.get(i).afterRenewal(outcomes.get(i));
        }
    }

    private List<RenewalOutcome> renewAll(List<HeldLock> held) {
        List<RenewalOutcome> outcomes;
        try {
            outcomes = renewal.renewAll(held);
        } catch (RuntimeException e) {
            return failedAll(held.size(), e);
        }
        if (outcomes == null || outcomes.size() != held.size()) {
            IllegalStateException e = new IllegalStateException("the driver's batch renewal returned "
                    + (outcomes == null ? "null" : outcomes.size() + " outcomes") + " for " + held.size()
                    + " locks");
            LogEvents.log(
                    LockEngine.log,
                    Level.WARN,
                    LogEvents.TIMER_TASK_FAILED,
                    e,
                    LogEvents.BACKEND,
                    engine.backend(),
                    LogEvents.ERROR,
                    LogEvents.errorName(e));
            return failedAll(held.size(), e);
        }
        return outcomes;
    }

    private static List<RenewalOutcome> failedAll(int n, RuntimeException e) {
        RenewalOutcome failed = RenewalOutcome.failed(e);
        List<RenewalOutcome> outcomes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            outcomes.add(failed);
        }
        return outcomes;
    }
}
