/**
 * ShedLock on distlock: {@link io.distlock.shedlock.DistlockShedLockProvider} is a ShedLock {@code
 * LockProvider} over any distlock backend, and {@link io.distlock.shedlock.DistlockLockAssert} gives
 * the locked task its lease and fencing token.
 */
package io.distlock.shedlock;
