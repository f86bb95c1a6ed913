/**
 * Shared by distlock's SQL backends (lock-mysql-skiplocked, lock-postgresql); not a user API and may
 * change at any time.
 *
 * <p>Locks held as row locks in an open transaction: {@link io.distlock.jdbc.core.RowLockDriver} (the
 * engine's driver) with {@link io.distlock.jdbc.core.LockConnections} (pool handling), {@link
 * io.distlock.jdbc.core.WarmConnections}, {@link io.distlock.jdbc.core.TokenAllocator} (fencing tokens
 * committed apart from the lock's transaction), {@link io.distlock.jdbc.core.RowLockWaits}, {@link
 * io.distlock.jdbc.core.RowLockContender}, {@link io.distlock.jdbc.core.HeldRowLock} (heartbeat,
 * extension, release) and {@link io.distlock.jdbc.core.SchemaCheck}; {@link
 * io.distlock.jdbc.core.LeaseWork} runs the caller's statements in a lock's or a claim's transaction,
 * and {@link io.distlock.jdbc.core.RowClaimer} builds {@code claimRows} statements. What a database
 * supplies (statements, error codes, driver hooks) is a {@link io.distlock.jdbc.core.SqlDialect}.
 */
package io.distlock.jdbc.core;
