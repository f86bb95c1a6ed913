/**
 * The distlock user API: {@link io.distlock.LockProvider} (one per backend and application), {@link
 * io.distlock.DistributedLock} handles, {@link io.distlock.Lease}s with fencing tokens, validity
 * and loss notification, and {@link io.distlock.Capabilities} that state truthfully what a backend
 * guarantees. Open a backend with {@link io.distlock.LockProviders#open(String)}.
 */
package io.distlock;
