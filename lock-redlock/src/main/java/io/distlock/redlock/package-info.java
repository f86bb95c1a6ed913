/**
 * Redlock over N independent Redis masters ({@code redlock://host1:port,host2:port,host3:port}):
 * {@link io.distlock.redlock.RedlockLockProvider} and its {@link io.distlock.redlock.RedlockLockOptions}.
 */
package io.distlock.redlock;
