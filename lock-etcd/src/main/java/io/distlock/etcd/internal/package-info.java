/** Internal implementation of the etcd backend; not an API, may change at any time. */
package io.distlock.etcd.internal;
