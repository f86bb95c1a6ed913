/**
 * Service provider interface for backends: a backend implements a small {@link
 * io.distlock.spi.LockDriver} (try, wait for change, renew, release) and wraps it in {@link
 * io.distlock.spi.LockEngine}, which implements the whole contract (waiting, leases, renewal,
 * validity, loss, observers, shutdown) the same way for every backend. Users of the library do not
 * need this package.
 */
package io.distlock.spi;
