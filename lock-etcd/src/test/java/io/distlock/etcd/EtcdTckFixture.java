package io.distlock.etcd;

import io.distlock.LockNames;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.tck.TckFixture;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The TCK fixture for etcd: every client is a new provider with its own jetcd client. */
class EtcdTckFixture implements TckFixture {
    static final String PREFIX = "/distlock-test/";

    private final List<String> endpoints;
    private final EtcdServerControl server;
    private final Client admin;
    private final boolean perLockLease;

    EtcdTckFixture(List<String> endpoints, EtcdServerControl server) {
        this(endpoints, server, false);
    }

    /** @param perLockLease whether clients use one etcd lease per acquisition */
    EtcdTckFixture(List<String> endpoints, EtcdServerControl server, boolean perLockLease) {
        this.endpoints = endpoints;
        this.server = server;
        this.perLockLease = perLockLease;
        this.admin =
                Client.builder().endpoints(endpoints.toArray(new String[0])).build();
    }

    @Override
    public String backend() {
        return "etcd";
    }

    EtcdLockOptions etcdOptions() {
        return EtcdLockOptions.builder()
                .endpoints(endpoints)
                .keyPrefix(PREFIX)
                .requestTimeout(Duration.ofSeconds(3))
                .perLockLease(perLockLease)
                .build();
    }

    @Override
    public EtcdLockProvider newClient(LockOptions options) {
        return EtcdLockProvider.builder()
                .etcdOptions(etcdOptions())
                .options(options)
                .build();
    }

    Client admin() {
        return admin;
    }

    /** Keys currently under the lock's prefix, oldest first. */
    List<KeyValue> keys(String lockName) {
        ByteSequence prefix = ByteSequence.from(PREFIX + LockNames.encode(lockName) + "/", StandardCharsets.UTF_8);
        try {
            return admin.getKVClient()
                    .get(
                            prefix,
                            GetOption.builder()
                                    .isPrefix(true)
                                    .withSortField(GetOption.SortTarget.CREATE)
                                    .withSortOrder(GetOption.SortOrder.ASCEND)
                                    .build())
                    .get(5, TimeUnit.SECONDS)
                    .getKvs();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read keys of " + lockName, e);
        }
    }

    @Override
    public void expireLease(String lockName) {
        List<KeyValue> kvs = keys(lockName);
        if (kvs.isEmpty()) {
            throw new IllegalStateException("lock '" + lockName + "' has no holder");
        }
        try {
            admin.getLeaseClient().revoke(kvs.get(0).getLease()).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot revoke the holder's lease of " + lockName, e);
        }
    }

    @Override
    public void crashClient(LockProvider client) {
        ((EtcdLockProvider) client).simulateCrash();
    }

    /** Kills the member(s); clients' requests fail until {@link #startServer()}. */
    @Override
    public void stopServer() {
        server.stop();
    }

    /** Starts the member(s) again on the same ports, with their data (revisions survive). */
    @Override
    public void startServer() {
        server.startAgain();
    }

    /**
     * Established TCP connections to the members' client ports, counted on the server side from
     * {@code /proc/net/tcp{,6}} (etcd 3.4 exports no connection gauge). Includes this fixture's
     * admin client.
     */
    @Override
    public int serverConnectionCount() {
        java.util.Set<Integer> ports = new java.util.HashSet<>();
        for (String e : endpoints) {
            ports.add(java.net.URI.create(e).getPort());
        }
        int n = 0;
        for (String f : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            java.nio.file.Path path = java.nio.file.Path.of(f);
            if (!java.nio.file.Files.isReadable(path)) {
                continue;
            }
            try {
                for (String line : java.nio.file.Files.readAllLines(path)) {
                    String[] cols = line.trim().split("\\s+");
                    if (cols.length < 4 || !cols[3].equals("01")) { // 01 = ESTABLISHED
                        continue;
                    }
                    String local = cols[1];
                    int port = Integer.parseInt(local.substring(local.indexOf(':') + 1), 16);
                    if (ports.contains(port)) {
                        n++;
                    }
                }
            } catch (java.io.IOException | NumberFormatException ex) {
                throw new IllegalStateException("cannot read " + f, ex);
            }
        }
        return n;
    }

    @Override
    public void close() {
        admin.close();
        server.close();
    }
}
