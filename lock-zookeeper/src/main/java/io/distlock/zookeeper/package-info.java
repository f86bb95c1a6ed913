/**
 * ZooKeeper backend: {@link io.distlock.zookeeper.ZooKeeperLockProvider} and its options. Locks are
 * ephemeral-sequential nodes fenced by the holder node's czxid; see the provider's javadoc for the
 * guarantees and their limits.
 */
package io.distlock.zookeeper;
