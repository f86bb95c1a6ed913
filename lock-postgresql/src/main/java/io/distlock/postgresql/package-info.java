/**
 * PostgreSQL backend: locks held as row locks ({@code SELECT ... FOR UPDATE SKIP LOCKED}) in a
 * transaction kept open on a dedicated connection, fencing tokens from a sequence floored at the
 * server's clock, and row claiming for work and stock allocation. Start at {@link
 * io.distlock.postgresql.PostgresLockProvider}; its options are {@link
 * io.distlock.postgresql.PostgresLockOptions}.
 */
package io.distlock.postgresql;
