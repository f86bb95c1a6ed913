/**
 * Internal implementation of the PostgreSQL backend; not part of the public API and may change at
 * any time.
 *
 * <p>The row-lock core (pool handling, waits, heartbeat, release, tokens, schema checks) is
 * lock-jdbc-core's {@code io.distlock.jdbc.core}; what PostgreSQL supplies is here: {@link
 * io.distlock.postgresql.internal.PostgresDialect} (statements, SQLStates, driver hooks), {@link
 * io.distlock.postgresql.internal.PgJdbcSettings} (driver properties, TLS) with {@link
 * io.distlock.postgresql.internal.ContextSocketFactory}, {@link
 * io.distlock.postgresql.internal.PostgresDrivers} (assembly) and the {@code postgresql://} factory.
 */
package io.distlock.postgresql.internal;
