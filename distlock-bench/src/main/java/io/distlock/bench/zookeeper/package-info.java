/**
 * Benchmarks of lock-zookeeper: {@link io.distlock.bench.zookeeper.ZooKeeperBench} (ours against
 * Curator and the floors, interleaved), {@link io.distlock.bench.zookeeper.ZooKeeperStageBench}
 * (where an uncontended acquire+release spends its time on the client) and {@link
 * io.distlock.bench.zookeeper.ZooKeeperHandoffBench} (where a hand-off spends its time). Each starts
 * its own ZooKeeper server process; run with {@code ./distlock bench <ClassName> [args]}.
 */
package io.distlock.bench.zookeeper;
