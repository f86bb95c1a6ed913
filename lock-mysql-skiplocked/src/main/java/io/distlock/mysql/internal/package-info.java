/**
 * Internal implementation of the MySQL backend; not part of the public API and may change at any
 * time.
 *
 * <p>The row-lock core, which knows no SQL of its own: {@link io.distlock.mysql.internal.RowLockDriver}
 * (the engine's driver) with {@link io.distlock.mysql.internal.LockConnections} (pool handling),
 * {@link io.distlock.mysql.internal.WarmConnections}, {@link io.distlock.mysql.internal.TokenAllocator},
 * {@link io.distlock.mysql.internal.RowLockWaits}, {@link io.distlock.mysql.internal.RowLockContender},
 * {@link io.distlock.mysql.internal.HeldRowLock} (heartbeat, release) and {@link
 * io.distlock.mysql.internal.SchemaCheck}; {@link io.distlock.mysql.internal.RowClaimer} builds
 * {@code claimRows} statements. What a database supplies is a {@link
 * io.distlock.mysql.internal.SqlDialect}. MySQL's part: {@link io.distlock.mysql.internal.MySqlDialect}
 * (statements, error codes, Connector/J hooks), {@link io.distlock.mysql.internal.ConnectorJSettings}
 * (driver properties, TLS), {@link io.distlock.mysql.internal.MySqlDrivers} (assembly) and the {@code
 * mysql://} factory.
 */
package io.distlock.mysql.internal;
