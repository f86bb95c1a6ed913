-- distlock MySQL/MariaDB schema (MySQL 8.0+, MariaDB 10.6+; tested on MariaDB 10.11).
-- Replace distlock_locks by your table name (option "table"); the token table is <table>_token.

-- One row per lock name (LockNames.encode(name): ASCII, injective). A holder keeps the row locked
-- (SELECT ... FOR UPDATE) in an open transaction for the life of its lease.
CREATE TABLE IF NOT EXISTS distlock_locks (
  name VARCHAR(768) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY
) ENGINE=InnoDB;

-- Fencing tokens: one counter row (id = 1) for every lock of the table. Once the holder has the row
-- lock, one statement in autocommit, committed before the token is used, sets the counter to
-- max(counter + 1, the server's clock in µs) and returns it: tokens strictly increase across all locks,
-- and stay above every earlier token after the server lost this table's data (restore, restart without
-- data), as long as the clock has not stepped back by more than the time since. The row is created by
-- the first allocation.
CREATE TABLE IF NOT EXISTS distlock_locks_token (
  id    TINYINT NOT NULL PRIMARY KEY,
  token BIGINT NOT NULL
) ENGINE=InnoDB;
