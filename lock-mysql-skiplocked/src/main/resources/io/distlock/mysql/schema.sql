-- distlock MySQL/MariaDB schema (MySQL 8.0+, MariaDB 10.6+; tested on MariaDB 10.11).
-- Replace distlock_locks by your table name (option "table"); the token table is <table>_token.

-- One row per lock name (LockNames.encode(name): ASCII, injective). A holder keeps the row locked
-- (SELECT ... FOR UPDATE) in an open transaction for the life of its lease.
CREATE TABLE IF NOT EXISTS distlock_locks (
  name VARCHAR(768) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY
) ENGINE=InnoDB;

-- Fencing tokens: once the holder has the row lock, REPLACE INTO ... (name), committed on its own
-- (autocommit) before the token is used, allocates a new AUTO_INCREMENT value. InnoDB persists the
-- counter across restarts (MySQL 8.0+, MariaDB 10.2.4+); committed allocations survive a crash as far
-- as innodb_flush_log_at_trx_commit makes commits durable.
CREATE TABLE IF NOT EXISTS distlock_locks_token (
  name  VARCHAR(768) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  token BIGINT NOT NULL AUTO_INCREMENT,
  UNIQUE KEY distlock_token_uk (token)
) ENGINE=InnoDB;
