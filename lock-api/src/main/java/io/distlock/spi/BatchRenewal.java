package io.distlock.spi;

import java.util.ArrayList;
import java.util.List;

/**
 * How a {@link RenewalMode#WATCHDOG} driver renews the leases that are due in one renewal tick of its
 * engine ({@link LockDriver#batchRenewal()}). The engine renews on a grid of ticks, so that the
 * leases of one provider come due together, and hands each tick's due locks to one call; a driver
 * that can renew many locks in one request per server (a pipeline, one script over many keys)
 * keeps its renewal traffic independent of the number of locks it holds.
 *
 * <p>Whatever the batching, each lock is renewed as {@link HeldLock#renew()} would renew it: only
 * while the server still holds it for this client (checked per lock), with the lease time it holds,
 * and with its {@link HeldLock#validUntilNanos()} moved to a deadline counted from a ticker reading
 * taken before the request that renewed it was sent.
 *
 * <p>Calls come from the engine's watchdog thread, one at a time; like a single renewal, a call must
 * be bounded in time (a request timeout well below the renewal interval).
 */
@FunctionalInterface
public interface BatchRenewal {

    /** Renews the locks one after another with {@link HeldLock#renew()}: the default. */
    BatchRenewal ONE_BY_ONE = due -> {
        List<RenewalOutcome> outcomes = new ArrayList<>(due.size());
        for (HeldLock h : due) {
            RenewalOutcome o;
            try {
                o = RenewalOutcome.of(h.renew());
            } catch (RuntimeException e) {
                o = RenewalOutcome.failed(e);
            }
            outcomes.add(o);
        }
        return outcomes;
    };

    /**
     * Renews every lock of {@code due}, each held through this driver and listed once.
     *
     * @return one outcome per lock of {@code due}, in the same order: {@link RenewalOutcome#RENEWED},
     *     {@link RenewalOutcome#GONE}, or {@link RenewalOutcome#failed} for each lock whose request
     *     failed (a request covering many locks that failed is a failure for each of them). A call
     *     that throws is taken as a failure of every lock.
     */
    List<RenewalOutcome> renewAll(List<HeldLock> due);
}
