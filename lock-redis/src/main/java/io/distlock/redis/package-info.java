/**
 * The Redis backend: {@link io.distlock.redis.RedisLockProvider} and {@link
 * io.distlock.redis.RedisLockOptions}, for standalone Redis, Sentinel and Cluster.
 */
package io.distlock.redis;
