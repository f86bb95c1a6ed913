/**
 * Shared by distlock's Redis modules (lock-redis and lock-redlock): the Lua scripts and their
 * runner, key naming, owner values, the pub/sub subscriber, connection checks, TLS set-up, Jedis
 * settings and the reading of errors. Not a user API, and it may change in any release — except
 * {@link io.distlock.redis.core.RedisConnectionOptions}, the connection option block that {@code
 * RedisLockOptions} and {@code RedlockLockOptions} share and return from {@code connection()}.
 */
package io.distlock.redis.core;
