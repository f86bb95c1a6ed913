/**
 * Internal implementation of the MySQL backend; not part of the public API and may change at any
 * time.
 *
 * <p>The row-lock core (pool handling, waits, heartbeat, release, tokens, schema checks) is
 * lock-jdbc-core's {@code io.distlock.jdbc.core}; what MySQL supplies is here: {@link
 * io.distlock.mysql.internal.MySqlDialect} (statements, error codes, Connector/J hooks), {@link
 * io.distlock.mysql.internal.ConnectorJSettings} (driver properties, TLS), {@link
 * io.distlock.mysql.internal.MySqlDrivers} (assembly) and the {@code mysql://} factory.
 */
package io.distlock.mysql.internal;
