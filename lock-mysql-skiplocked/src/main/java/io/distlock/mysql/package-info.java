/**
 * MySQL / MariaDB backend: locks held as row locks ({@code SELECT ... FOR UPDATE SKIP LOCKED}) in a
 * transaction kept open on a dedicated connection, fencing tokens from {@code AUTO_INCREMENT}, and
 * row claiming for work and stock allocation ({@link io.distlock.mysql.ClaimCursor}). Start at
 * {@link io.distlock.mysql.MySqlLockProvider}; its options are {@link
 * io.distlock.mysql.MySqlLockOptions}.
 */
package io.distlock.mysql;
