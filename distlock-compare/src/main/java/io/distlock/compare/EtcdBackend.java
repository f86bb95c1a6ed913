package io.distlock.compare;

import io.distlock.compare.peers.JetcdLockClient;
import io.distlock.tck.compare.ComparisonTarget;
import io.distlock.tck.servers.EtcdServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * etcd: distlock's lock-etcd and jetcd's Lock client on one etcd 3.4 member ({@code
 * --unsafe-no-fsync}). Requests are counted as gRPC messages received by the server (/metrics).
 */
final class EtcdBackend extends ServerBackend {
    private EtcdServer server;
    private Client floorClient;

    @Override
    public String name() {
        return "etcd";
    }

    @Override
    public void start() {
        server = EtcdServer.start();
        floorClient = Client.builder().endpoints(server.endpoint()).build();
    }

    private long messages() {
        try {
            return Probes.sumMetric(Probes.httpGet(server.endpoint() + "/metrics"), "grpc_server_msg_received_total");
        } catch (IOException e) {
            throw unchecked(e);
        }
    }

    private void get() {
        try {
            floorClient
                    .getKVClient()
                    .get(ByteSequence.from("floor", StandardCharsets.UTF_8))
                    .get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw unchecked(e);
        }
    }

    @Override
    public List<ComparisonTarget> targets(boolean peers) {
        String version;
        try {
            version = Probes.httpGet(server.endpoint() + "/version").trim();
        } catch (IOException e) {
            version = "?";
        }
        List<ComparisonTarget> out = new ArrayList<>();
        out.add(ours("etcd", server.uri())
                .withFloor(this::get, 2)
                .withServerRequests(counter(this::messages))
                .withServerVersion(version));
        if (peers) {
            String endpoint = server.endpoint();
            out.add(ComparisonTarget.of("jetcd Lock", "etcd", () -> new JetcdLockClient(endpoint))
                    .withFloor(this::get, 2)
                    .withServerRequests(counter(this::messages))
                    .withServerVersion(version)
                    .asPeer());
        }
        return out;
    }

    @Override
    public String serverDescription() {
        return "etcd " + server.address() + " (--unsafe-no-fsync)";
    }

    @Override
    public void close() {
        if (floorClient != null) {
            floorClient.close();
        }
        if (server != null) {
            server.close();
        }
    }
}
