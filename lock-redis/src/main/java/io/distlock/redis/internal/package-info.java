/**
 * Internal implementation of the Redis backend (driver, scripts, subscriber, URI parsing). Not API:
 * may change in any release.
 */
package io.distlock.redis.internal;
