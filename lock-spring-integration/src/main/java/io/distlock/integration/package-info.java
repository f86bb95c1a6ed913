/**
 * Spring Integration on distlock: {@link io.distlock.integration.DistlockLockRegistry} is a {@code
 * LockRegistry} (renewable, expirable) over any distlock backend, for aggregators, {@code
 * executeLocked} and {@code LockRegistryLeaderInitiator}; {@link
 * io.distlock.integration.DistlockLockRegistry#lease(Object)} gives a hold's lease and fencing token.
 */
package io.distlock.integration;
