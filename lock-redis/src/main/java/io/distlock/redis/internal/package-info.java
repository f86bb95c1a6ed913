/**
 * Internal implementation of the Redis backend (driver, contender, held lock, script calls,
 * Sentinel failover tracking, topologies, URI parsing); the pieces it shares with lock-redlock are
 * in {@code io.distlock.redis.core}. Not API: may change in any release.
 */
package io.distlock.redis.internal;
