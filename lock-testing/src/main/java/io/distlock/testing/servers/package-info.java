/**
 * Real servers for tests: Redis (standalone, sentinel, cluster, independent masters), etcd (member,
 * cluster), ZooKeeper (server, ensemble) and MariaDB, started on free 127.0.0.1 ports in temporary
 * directories, ready when they answered a real request, stopped on close and killed when the test
 * JVM dies. See {@link io.distlock.testing.servers.TestServer} and {@code lock-testing/README.md}.
 */
package io.distlock.testing.servers;
