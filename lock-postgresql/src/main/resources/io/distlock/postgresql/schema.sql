-- distlock PostgreSQL schema (PostgreSQL 12+, a UTF8 database; tested on PostgreSQL 15).
-- Replace distlock_locks by your table name (option "table"); the token sequence is <table>_token.

-- One row per lock name, stored as it is: COLLATE "C" compares bytes, so names that differ in case,
-- trailing spaces or Unicode normalisation are different locks. A holder keeps its row locked
-- (SELECT ... FOR UPDATE) in an open transaction for the life of its lease.
CREATE TABLE IF NOT EXISTS distlock_locks (
  name text COLLATE "C" NOT NULL PRIMARY KEY
);

-- Fencing tokens: once the holder has the row lock, max(nextval, server clock in µs), committed on
-- its own (autocommit) before the token is used; setval moves the sequence to the clock when the
-- clock is ahead. A sequence value is never rolled back and survives restarts.
CREATE SEQUENCE IF NOT EXISTS distlock_locks_token;
