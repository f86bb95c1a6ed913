package io.distlock;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;

/**
 * Proof that the caller held a lock at the moment it was acquired, and the client's best knowledge
 * of whether it still does.
 *
 * <p><b>What "valid" means.</b> A lease is valid while it has not been released, has not been
 * detected as lost, and the client's monotonic clock has not passed {@code acquiredAt + validity -
 * safetyMargin}, where {@code acquiredAt} is taken <em>before</em> the acquiring request was sent.
 * Renewal moves that deadline forward. A valid lease is a belief, not a guarantee: a process that
 * pauses (GC, SIGSTOP, a swapped-out VM) right after {@link #checkValid()} may keep acting on a lock
 * that has already expired on the server. That is why backends that can hand out a
 * {@linkplain #fencingToken() fencing token}, and why resources that must not be corrupted should
 * check it (see {@code io.distlock.fencing}).
 *
 * <p><b>Release.</b> {@link #release()} (and {@link #close()}, for try-with-resources) is idempotent
 * and owner-only: it deletes the lock on the server only if this lease still owns it, so releasing a
 * lease that was lost never disturbs the next holder.
 *
 * <pre>{@code
 * try (Lease lease = lock.acquire()) {
 *     long token = lease.fencingToken().orElseThrow();
 *     storage.write(data, token);   // the storage rejects tokens older than the last it saw
 * }
 * }</pre>
 *
 * <p>Lease objects are thread-safe; the thread that releases need not be the one that acquired.
 */
public interface Lease extends AutoCloseable {

    /** The name of the lock this lease is for. */
    String lockName();

    /**
     * The fencing token of this hold: a number that is strictly greater than the token of every
     * earlier holder of the same lock (or of every lock, with {@link
     * Capabilities.Fencing#GLOBALLY_MONOTONIC}). Empty when the backend cannot provide one (see
     * {@link Capabilities#fencing()}).
     */
    OptionalLong fencingToken();

    /**
     * When the lock was granted to this lease, on the client's wall clock ({@link Instant#now()} right
     * after the server's answer). For display and audit only — for example {@link
     * LockProvider#heldLeases()} in an admin endpoint: validity is never computed from it (see the
     * class comment), and a wall clock that is stepped makes it inaccurate.
     */
    Instant acquiredAt();

    /**
     * The validity deadline translated to the wall clock: {@code Instant.now()} plus {@link
     * #remainingValidity()}, recomputed at each call (so it moves forward with renewals, and is
     * "now" once the lease is released or lost). For display only, like {@link #acquiredAt()}.
     */
    default Instant validUntil() {
        Instant now = Instant.now();
        try {
            return now.plus(remainingValidity());
        } catch (DateTimeException | ArithmeticException tooFar) {
            return Instant.MAX;
        }
    }

    /** Whether the client still believes it holds the lock (see the class comment). */
    boolean isValid();

    /**
     * Time left before the validity deadline on the client's monotonic clock; {@link
     * Duration#ZERO} once the lease is released, lost or expired.
     */
    Duration remainingValidity();

    /**
     * Throws unless {@link #isValid()}.
     *
     * @throws LeaseLostException naming why the lease is no longer valid
     */
    void checkValid();

    /**
     * Completes (normally, with the reason) when the lease is lost: validity ran out, a renewal
     * found another owner or failed past the deadline, the session or connection died, or the
     * provider was closed while the lease was held. After a regular {@link #release()} the stage
     * completes exceptionally with a {@link java.util.concurrent.CancellationException}, so
     * dependent actions registered with {@code thenAccept} do not run. Actions run on a provider
     * thread and must not block.
     */
    CompletionStage<LeaseLostException> lost();

    /**
     * Extends this lease by its owner: the lock stays taken until {@code leaseTime} from now, and
     * the lease is valid until {@code t + leaseTime - safetyMargin}, {@code t} read before the request
     * was sent. Owner-checked on the server: it never extends another client's hold. Meant for leases
     * that do not renew ({@link DistributedLock#withAutoRenew(boolean) withAutoRenew(false)}); on a
     * renewing lease the next renewal sets the validity back to the lease's own lease time.
     *
     * <p>With {@link Capabilities.LeaseTiming#SERVER} the server holds the new time even if this
     * client crashes; with {@code CLIENT} the client keeps it.
     *
     * @throws NullPointerException if {@code leaseTime} is null
     * @throws IllegalArgumentException unless {@code leaseTime} is within the bounds {@link
     *     DistributedLock#withLeaseTime} accepts
     * @throws LeaseLostException if the lease was released, lost or had expired, or the server found
     *     the lock gone or owned by another client (the lease is then reported lost)
     * @throws BackendUnavailableException if the server could not be asked or did not answer: the
     *     lease keeps its previous validity
     * @throws UnsupportedOperationException if this implementation cannot extend leases
     */
    default void extend(Duration leaseTime) {
        throw new UnsupportedOperationException(
                "extend is not supported by " + getClass().getName());
    }

    /**
     * Ends this hold but lets the lock stay taken until {@code delay} from now, instead of freeing it
     * at once (what ShedLock calls {@code lockAtLeastFor}: a job that finished early still blocks other
     * instances until its slot is over). Afterwards the lease behaves as released: it is not valid,
     * {@link #lost()} completes exceptionally with a {@link java.util.concurrent.CancellationException}
     * and it is no longer in {@link LockProvider#heldLeases()}. A zero or negative delay is {@link
     * #release()}.
     *
     * <p>With {@link Capabilities.LeaseTiming#SERVER} the server frees the lock {@code delay} after
     * the call even if this client crashes at once. With {@code CLIENT} the provider keeps the lock
     * (renewing it if needed) and frees it after the delay; closing the provider, or a crash, frees it
     * earlier.
     *
     * @return {@code true} if this lease still owned the lock, as {@link #release()} returns; with
     *     {@code CLIENT} lease timing this call does not ask the server (the provider keeps renewing
     *     the lock through the delay), so a loss this client has not noticed yet still answers
     *     {@code true}, and the next renewal finds the lock gone and keeps nothing
     * @throws NullPointerException if {@code delay} is null
     * @throws BackendUnavailableException if the server could not be asked; the lock then expires
     *     at the end of its lease
     * @throws UnsupportedOperationException if this implementation cannot delay a release
     */
    default boolean releaseAfter(Duration delay) {
        throw new UnsupportedOperationException(
                "releaseAfter is not supported by " + getClass().getName());
    }

    /**
     * Releases the lock if this lease still owns it. Idempotent and owner-only.
     *
     * @return {@code true} if this call released a lock that was still held by this lease; {@code
     *     false} if the lease had already been released, or had been lost (in which case the lock
     *     was left untouched, since it may belong to someone else now)
     * @throws BackendUnavailableException if the backend could not be reached; the lock then
     *     expires on its own at the end of its lease
     */
    boolean release();

    /** Same as {@link #release()}, ignoring its result. */
    @Override
    void close();
}
