package io.distlock.fencing;

/**
 * The resource side of fencing: accepts a write only if its token is not older than the newest
 * token already accepted for that resource, and remembers the newest.
 *
 * <p>Equal tokens are accepted, so one holder may write several times under one lease. A token
 * from an earlier holder, arriving after a later holder wrote, is rejected: that is the case a
 * lease alone cannot prevent (the earlier holder was paused past its lease and does not know).
 *
 * <pre>{@code
 * try (Lease lease = lock.acquire()) {
 *     guard.check("account-7", lease.fencingToken().orElseThrow());   // throws if stale
 *     account.write(...);
 * }
 * }</pre>
 *
 * The check and the write must be atomic with respect to other writers; {@link
 * JdbcFencingGuard} achieves that by running in the caller's transaction.
 */
public interface FencingGuard {

    /**
     * Accepts {@code token} for {@code resource} and records it.
     *
     * @throws StaleTokenException if a larger token was accepted before
     * @throws IllegalArgumentException if {@code resource} is null or empty
     */
    void check(String resource, long token);
}
