package io.distlock;

/**
 * Work to run while holding a lock, given the lease so it can read the fencing token or check
 * validity.
 *
 * @param <T> the result type
 * @param <X> the checked exception the work may throw ({@link RuntimeException} if none)
 */
@FunctionalInterface
public interface LockedAction<T, X extends Exception> {
    T run(Lease lease) throws X;
}
