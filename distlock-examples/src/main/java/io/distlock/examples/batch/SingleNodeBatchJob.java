package io.distlock.examples.batch;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockException;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Example 2 — a batch job that must run on one node at a time, for as long as it takes (tens of
 * minutes), and must stop as soon as it can no longer be sure it is the only one running.
 *
 * <p>Every node of the cluster runs {@link #runIfNotRunning} on its own schedule. The first node to
 * take the lock runs the job; the others see the lock taken and skip the run. The lease is short
 * (say 30 s) so that a crashed node frees the job quickly, and the provider's watchdog renews it
 * (every {@code leaseTime / 3} by default, see {@link io.distlock.LockOptions#autoRenew()}) for as
 * long as the job runs — however long that is.
 *
 * <p>The job works in small chunks and stops when its lease is lost (the lock key was deleted or
 * expired, the server was unreachable until the validity ran out, the provider was closed):
 *
 * <ul>
 *   <li>before each chunk it calls {@link Lease#checkValid()}, so it never <em>starts</em> work
 *       without the lock;
 *   <li>{@link Lease#lost()} interrupts the worker thread, so a chunk that blocks (I/O, a sleep, a
 *       queue) is cut short rather than finished.
 * </ul>
 *
 * A lease is a belief, not a guarantee (see {@link Lease}): a node paused longer than the lease may
 * finish a chunk after another node took over. Chunks should be idempotent, or their writes fenced
 * (see the money transfer example).
 *
 * <pre>
 * java io.distlock.examples.batch.SingleNodeBatchJob redis://127.0.0.1:6379 [chunks]
 * </pre>
 */
public final class SingleNodeBatchJob {

    /** One chunk of the job's work; may block, and should give up when interrupted. */
    @FunctionalInterface
    public interface Chunk {
        void process(int index) throws Exception;
    }

    /** How a run ended. */
    public enum Status {
        /** Every chunk ran while this node held the lock. */
        COMPLETED,
        /** Another node holds the lock: this node did nothing. */
        ALREADY_RUNNING,
        /** The lease was lost; the job stopped before its next chunk (or during the current one). */
        LEASE_LOST
    }

    /** The outcome of one run. */
    public record Outcome(Status status, int chunksDone, Optional<LeaseLostException> loss) {}

    private final LockProvider locks;
    private final String jobName;

    public SingleNodeBatchJob(LockProvider locks, String jobName) {
        this.locks = Objects.requireNonNull(locks, "locks must not be null");
        this.jobName = Objects.requireNonNull(jobName, "jobName must not be null");
    }

    /**
     * Runs {@code chunks} chunks if no other node is running the job, holding the lock throughout.
     *
     * @throws InterruptedException if the calling thread was interrupted by someone else
     * @throws Exception the first failure of a chunk (the lock is released)
     */
    public Outcome runIfNotRunning(int chunks, Chunk chunk) throws Exception {
        Optional<Lease> acquired = locks.lock(jobName).tryAcquire();
        if (acquired.isEmpty()) {
            return new Outcome(Status.ALREADY_RUNNING, 0, Optional.empty());
        }
        Lease lease = acquired.get();
        StopOnLoss stop = new StopOnLoss(Thread.currentThread());
        lease.lost().thenAccept(stop::lost);
        int done = 0;
        try {
            for (int i = 0; i < chunks; i++) {
                lease.checkValid(); // never start a chunk without the lock
                chunk.process(i);
                done++;
            }
            lease.checkValid(); // the last chunk, too, ended while we held the lock
            return new Outcome(Status.COMPLETED, done, Optional.empty());
        } catch (LeaseLostException e) {
            return new Outcome(Status.LEASE_LOST, done, Optional.of(stop.cause().orElse(e)));
        } catch (InterruptedException e) {
            if (stop.cause().isPresent()) {
                return new Outcome(Status.LEASE_LOST, done, stop.cause());
            }
            throw e;
        } finally {
            stop.finish();
            releaseQuietly(lease);
        }
    }

    private static void releaseQuietly(Lease lease) {
        try {
            lease.release();
        } catch (LockException unreachable) {
            // the server cannot be reached: the lock expires there at the end of its lease
        }
    }

    /** Interrupts the worker when the lease is lost, but only while the job runs. */
    private static final class StopOnLoss {
        private final Thread worker;
        private boolean running = true;
        private LeaseLostException cause;

        StopOnLoss(Thread worker) {
            this.worker = worker;
        }

        synchronized void lost(LeaseLostException e) {
            cause = e;
            if (running) {
                worker.interrupt();
            }
        }

        synchronized Optional<LeaseLostException> cause() {
            return Optional.ofNullable(cause);
        }

        /** Ends the window in which {@link #lost} interrupts; clears an interrupt it caused. */
        synchronized void finish() {
            running = false;
            if (cause != null) {
                Thread.interrupted();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: SingleNodeBatchJob <redis://host:port?leaseTime=30s> [chunks]");
            System.exit(2);
        }
        int chunks = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        try (LockProvider locks = LockProviders.open(args[0])) {
            Outcome outcome = new SingleNodeBatchJob(locks, "nightly-settlement").runIfNotRunning(chunks, i -> {
                System.out.println("chunk " + i);
                TimeUnit.SECONDS.sleep(1); // stands for a second of real work
            });
            System.out.println(outcome);
        }
    }
}
