/** Internal implementation of the ZooKeeper backend; not an API, may change without notice. */
package io.distlock.zookeeper.internal;
