package io.distlock.etcd;

/** A test server (one member or a cluster) that can be stopped and started again with its data. */
interface EtcdServerControl extends AutoCloseable {
    void stop();

    void startAgain();

    @Override
    void close();
}
