/**
 * The etcd backend: {@link io.distlock.etcd.EtcdLockProvider} and {@link
 * io.distlock.etcd.EtcdLockOptions}, and the {@code etcd://} URI factory.
 */
package io.distlock.etcd;
