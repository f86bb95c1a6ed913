package io.distlock.tck.servers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A single-member etcd 3.4 on free loopback ports (client and peer), with {@code
 * --unsafe-no-fsync}: a {@link #kill()} may lose the last writes, which test speed accepts. In
 * docker mode ({@link ServerMode}) it runs in a container of image {@code distlock.image.etcd} with
 * host networking.
 *
 * <pre>{@code
 * try (EtcdServer etcd = EtcdServer.start()) {
 *     LockProviders.open(etcd.uri());
 * }
 * }</pre>
 */
public final class EtcdServer extends DelegatingTestServer {

    private EtcdServer(TestServer delegate) {
        super(delegate);
    }

    /** Starts a member and waits until {@code /health} reports true. */
    public static EtcdServer start() {
        if (ServerMode.useDocker()) {
            return new EtcdServer(DockerServers.etcd());
        }
        return new EtcdServer(ServerProcess.startWithRetry(() -> {
            EtcdCluster.Member m = EtcdCluster.member("etcd", "default", Ports.free(), Ports.free());
            return m.newProcess(
                    m.name() + "=" + m.peerUrl(), "distlock-" + m.dir().getFileName());
        }));
    }

    /** {@code http://127.0.0.1:port}. */
    public String endpoint() {
        return "http://" + address();
    }

    /** {@code etcd://127.0.0.1:port}. */
    public String uri() {
        return "etcd://" + address();
    }

    /** Puts {@code key} = {@code value} through the HTTP JSON gateway. */
    public void put(String key, String value) throws IOException {
        Probes.httpPost(
                host(), port(), "/v3/kv/put", "{\"key\":\"" + b64(key) + "\",\"value\":\"" + b64(value) + "\"}");
    }

    /** The value of {@code key} read through the HTTP JSON gateway, or null. */
    public String get(String key) throws IOException {
        String body = Probes.httpPost(host(), port(), "/v3/kv/range", "{\"key\":\"" + b64(key) + "\"}");
        String value = Probes.jsonField(body, "value");
        return value == null ? null : new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8);
    }

    static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }
}
