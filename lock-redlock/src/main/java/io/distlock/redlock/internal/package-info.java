/** Internal implementation of lock-redlock; not an API, may change without notice. */
package io.distlock.redlock.internal;
