package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockConfigurationException;
import io.distlock.LockNames;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import io.distlock.build.ReadmeExamples;
import io.distlock.testing.LogCapture;
import io.distlock.testing.servers.EtcdServer;
import io.distlock.testing.servers.TestCertificates;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.auth.Permission;
import io.etcd.jetcd.options.GetOption;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * etcd with TLS (certificates generated for the test) and authentication: a lock user whose only
 * role grants readwrite on the lock prefix range, as documented in the README:
 *
 * <pre>
 * role distlock-locks: readwrite ["/distlock/", "/distlock0")   (the prefix and everything under it)
 * user distlock-app:   role distlock-locks
 * </pre>
 *
 * Also: wrong credentials and an untrusted server fail with a clear {@link
 * LockConfigurationException} that, like every log line, never contains the password; keys under
 * the lock prefix written or deleted by someone else give a clear error or a lost lease, never two
 * holders.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EtcdSecurityIT {
    static final String PREFIX = "/distlock/";
    static final String PREFIX_END = "/distlock0"; // '/' + 1 = '0': the end of the prefix range
    static final String ROLE = "distlock-locks";
    static final String USER = "distlock-app";
    static final String PASSWORD = "pw-0f:@/%?&x";
    static final String ROOT_PASSWORD = "root-pw-91";

    private TestCertificates certs;
    private EtcdServer etcd;
    private Client root;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeAll
    void startSecureEtcd() throws Exception {
        certs = TestCertificates.generate();
        etcd = EtcdServer.builder().tls(certs).start();
        try (Client setup = jetcd(null, null)) {
            var auth = setup.getAuthClient();
            get(auth.userAdd(bytes("root"), bytes(ROOT_PASSWORD)));
            get(auth.userGrantRole(bytes("root"), bytes("root")));
            get(auth.roleAdd(bytes(ROLE)));
            get(auth.roleGrantPermission(bytes(ROLE), bytes(PREFIX), bytes(PREFIX_END), Permission.Type.READWRITE));
            get(auth.userAdd(bytes(USER), bytes(PASSWORD)));
            get(auth.userGrantRole(bytes(USER), bytes(ROLE)));
            get(auth.authEnable());
        }
        root = jetcd("root", ROOT_PASSWORD);
    }

    @AfterEach
    void closeClients() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        open.clear();
    }

    @AfterAll
    void stop() {
        if (root != null) {
            root.close();
        }
        if (etcd != null) {
            etcd.close();
        }
        if (certs != null) {
            certs.close();
        }
    }

    private Client jetcd(String user, String password) throws Exception {
        var b = Client.builder()
                .endpoints(etcd.endpoint())
                .sslContext(ssl -> ssl.trustManager(certs.caCertificate().toFile()));
        if (user != null) {
            b.user(bytes(user)).password(bytes(password));
        }
        return b.build();
    }

    private EtcdLockOptions.Builder options(String user, String password) {
        return EtcdLockOptions.builder()
                .tls(TlsOptions.builder()
                        .trustCertificates(certs.caCertificate())
                        .build())
                .credentials(Credentials.of(user, password))
                .timeouts(TimeoutOptions.of(Duration.ofSeconds(3)));
    }

    private EtcdLockProvider provider(EtcdLockOptions o) {
        return provider(EtcdLockProvider.builder().endpoints(etcd.endpoint()).options(o));
    }

    private EtcdLockProvider provider(EtcdLockProvider.Builder b) {
        EtcdLockProvider p = b.leaseTime(Duration.ofSeconds(2)).build();
        open.add(p);
        return p;
    }

    private EtcdLockProvider lockUser() {
        String endpoint = etcd.endpoint();
        Path caCertificate = certs.caCertificate();
        String secret = PASSWORD;
        // README-BEGIN secure-configuration
        EtcdLockProvider.Builder locks = EtcdLockProvider.builder()
                .endpoints(endpoint) // https://host:2379: TLS
                .options(EtcdLockOptions.builder()
                        .keyPrefix("/distlock/") // the prefix range the user's role may read and write
                        .credentials(Credentials.of("distlock-app", secret))
                        // PEM CA; the server's certificate must match the host
                        .tls(TlsOptions.builder()
                                .trustCertificates(caCertificate)
                                .build())
                        .timeouts(TimeoutOptions.of(Duration.ofSeconds(3)))
                        .build());
        // README-END
        return provider(locks);
    }

    @Test
    void readme_secureConfigurationExample_isTheTestedOne() {
        ReadmeExamples.assertSnippetMatchesSource(
                Path.of("README.md"),
                Path.of("src/test/java/io/distlock/etcd/EtcdSecurityIT.java"),
                "secure-configuration");
    }

    @Test
    void lockUser_overTls_acquiresExcludesAndReleases() {
        EtcdLockProvider a = lockUser();
        EtcdLockProvider b = lockUser();
        Lease held = a.lock("tls-auth").tryAcquire().orElseThrow();
        assertThat(held.fencingToken()).isPresent();
        assertThat(b.lock("tls-auth").tryAcquire()).isEmpty();
        assertThat(held.release()).isTrue();
        Lease next = b.lock("tls-auth").tryAcquire().orElseThrow();
        assertThat(next.fencingToken().getAsLong())
                .isGreaterThan(held.fencingToken().getAsLong());
        assertThat(next.release()).isTrue();
    }

    /**
     * A waiter's watch goes on the provider's one shared watch stream, opened on jetcd's channel
     * with jetcd's credentials: over TLS, as a user limited to the key prefix, the hand-off comes
     * through it (a watch set up on it, one stream) and the lock changes hands.
     */
    @Test
    void lockUser_overTls_waiterHandOffOnSharedWatchStream() throws Exception {
        assertHandOffOnSharedWatchStream(lockUser(), lockUser(), "tls-wait");
    }

    /**
     * {@code a} holds {@code name}, {@code b} waits for it on its shared watch stream (one stream,
     * a watch set up on it) and takes it when {@code a} releases, with a larger token.
     */
    static void assertHandOffOnSharedWatchStream(EtcdLockProvider a, EtcdLockProvider b, String name) throws Exception {
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        CompletableFuture<Optional<Lease>> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return b.lock(name).tryAcquire(Duration.ofSeconds(20));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> b.sharedWatchesSetUp() >= 1);
        assertThat(waiter).isNotDone();
        assertThat(held.release()).isTrue();
        Lease next = waiter.get(20, TimeUnit.SECONDS).orElseThrow();
        assertThat(next.fencingToken().getAsLong())
                .isGreaterThan(held.fencingToken().getAsLong());
        assertThat(b.watchStreamsOpened()).isEqualTo(1L);
        assertThat(next.release()).isTrue();
    }

    @Test
    void lockUser_openedFromUri_works() throws Exception {
        String uri = "etcd://" + USER + ":" + URLEncoder.encode(PASSWORD, StandardCharsets.UTF_8) + "@"
                + etcd.address() + "/distlock/?tls=true&leaseTime=2s&trustCertificates="
                + URLEncoder.encode(certs.caCertificate().toString(), StandardCharsets.UTF_8);
        LockProvider p = LockProviders.open(URI.create(uri));
        open.add(p);
        assertThat(((EtcdLockProvider) p).endpointUris()).allMatch(e -> e.startsWith("https://"));
        assertThat(p.toString()).doesNotContain(PASSWORD);
        Lease l = p.lock("from-uri").tryAcquire().orElseThrow();
        assertThat(l.release()).isTrue();
    }

    @Test
    void lockUser_keysOutsidePrefix_permissionDenied() throws Exception {
        try (Client c = jetcd(USER, PASSWORD)) {
            get(c.getKVClient().put(bytes(PREFIX + "inside"), bytes("ok")));
            for (CompletableFuture<?> outside : List.of(
                    c.getKVClient().put(bytes("/elsewhere/x"), bytes("no")),
                    c.getKVClient().get(bytes("/elsewhere/x")),
                    c.getKVClient().put(bytes(PREFIX_END), bytes("no")),
                    c.getKVClient().put(bytes("/distlock"), bytes("no")),
                    c.getKVClient()
                            .delete(
                                    bytes("/"),
                                    io.etcd.jetcd.options.DeleteOption.builder()
                                            .isPrefix(true)
                                            .build()))) {
                assertThatThrownBy(() -> outside.get(5, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .hasMessageContaining("permission denied");
            }
            get(c.getKVClient().delete(bytes(PREFIX + "inside")));
        }
        // a provider whose prefix lies outside the role's range fails clearly, without the password
        EtcdLockProvider wrongPrefix =
                provider(options(USER, PASSWORD).keyPrefix("/other/").build());
        Throwable t = catchThrowable(() -> wrongPrefix.lock("x").tryAcquire());
        assertThat(t)
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("permission")
                .hasMessageContaining("key prefix");
        assertThat(LogCapture.fullText(t)).doesNotContain(PASSWORD);
    }

    @Test
    void wrongPassword_failsClearly_passwordNowhere() {
        String wrong = "Wr0ng-" + PASSWORD;
        try (LogCapture logs = LogCapture.start()) {
            EtcdLockProvider p = provider(options(USER, wrong).build());
            Throwable t = catchThrowable(() -> p.lock("denied").tryAcquire());
            assertThat(t)
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("refused the credentials");
            assertThat(LogCapture.fullText(t)).doesNotContain(wrong, PASSWORD);
            assertThat(p.toString()).doesNotContain(wrong);
            assertThat(EtcdLockProvider.builder()
                            .options(options(USER, wrong).build())
                            .toString())
                    .contains(USER)
                    .doesNotContain(wrong);
            p.close();
            assertThat(logs.text()).doesNotContain(wrong, PASSWORD);
        }
    }

    @Test
    void untrustedServerCertificate_failsClearly() {
        try (TestCertificates other = TestCertificates.generate()) {
            EtcdLockProvider p = provider(options(USER, PASSWORD)
                    .tls(TlsOptions.builder()
                            .trustCertificates(other.caCertificate())
                            .build())
                    .timeouts(TimeoutOptions.of(Duration.ofSeconds(2)))
                    .build());
            Throwable t = catchThrowable(() -> p.lock("untrusted").tryAcquire());
            assertThat(t).isInstanceOf(LockConfigurationException.class).hasMessageContaining("TLS");
            assertThat(LogCapture.fullText(t)).doesNotContain(PASSWORD);
        }
    }

    /**
     * Wrong credentials, a user without permission on the key prefix and an untrusted server
     * certificate are configuration errors: a {@code tryAcquire} with a long wait fails with {@link
     * LockConfigurationException} at once, never retrying them as an outage until the wait is over.
     */
    @Test
    void configurationErrors_insideALongWait_failAtOnceNeverRetried() {
        Duration wait = Duration.ofSeconds(20);
        try (TestCertificates other = TestCertificates.generate()) {
            List<EtcdLockOptions> misconfigured = List.of(
                    options(USER, "Wr0ng-" + PASSWORD).build(),
                    options(USER, PASSWORD).keyPrefix("/other/").build(),
                    options(USER, PASSWORD)
                            .tls(TlsOptions.builder()
                                    .trustCertificates(other.caCertificate())
                                    .build())
                            .build());
            for (EtcdLockOptions o : misconfigured) {
                EtcdLockProvider p = provider(o);
                long t0 = System.nanoTime();
                Throwable t = catchThrowable(() -> p.lock("misconfigured").tryAcquire(wait));
                long tookMs = (System.nanoTime() - t0) / 1_000_000;
                assertThat(t).as(o.toString()).isInstanceOf(LockConfigurationException.class);
                assertThat(tookMs).as("%s failed after %d ms", o, tookMs).isLessThan(wait.toMillis() / 4);
            }
        }
    }

    @Test
    void lockUser_trustStore_acquiresAndReleases() throws Exception {
        EtcdLockProvider p = provider(options(USER, PASSWORD)
                .tls(TlsOptions.builder()
                        .trustStore(certs.trustStore(), certs.storePassword())
                        .build())
                .build());
        Lease l = p.lock("trust-store").tryAcquire().orElseThrow();
        assertThat(l.release()).isTrue();
        String uri = "etcd://" + USER + ":" + URLEncoder.encode(PASSWORD, StandardCharsets.UTF_8) + "@"
                + etcd.address() + "/distlock/?trustStore="
                + URLEncoder.encode(certs.trustStore().toString(), StandardCharsets.UTF_8)
                + "&trustStorePassword=" + URLEncoder.encode(certs.storePassword(), StandardCharsets.UTF_8);
        LockProvider fromUri = LockProviders.open(URI.create(uri));
        open.add(fromUri);
        assertThat(fromUri.toString()).doesNotContain(certs.storePassword());
        Lease u = fromUri.lock("trust-store-uri").tryAcquire().orElseThrow();
        assertThat(u.release()).isTrue();
    }

    @Test
    void foreignKeyUnderLockPrefix_acquireFailsClearly_neverGranted() throws Exception {
        String name = "foreign-first";
        String intruder = PREFIX + LockNames.encode(name) + "/intruder";
        get(root.getKVClient().put(bytes(intruder), bytes("not distlock")));
        EtcdLockProvider a = lockUser();
        assertThatThrownBy(() -> a.lock(name).tryAcquire())
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("not written by distlock")
                .hasMessageContaining(intruder);
        // our own attempt's key was removed again: only the intruder is left
        assertThat(keys(name))
                .extracting(kv -> kv.getKey().toString(StandardCharsets.UTF_8))
                .containsExactly(intruder);
        get(root.getKVClient().delete(bytes(intruder)));
        Lease l = a.lock(name).tryAcquire().orElseThrow();
        assertThat(l.release()).isTrue();
    }

    @Test
    void foreignKeyAfterHolder_holderKeeps_othersFailClearly() throws Exception {
        String name = "foreign-later";
        EtcdLockProvider a = lockUser();
        EtcdLockProvider b = lockUser();
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        String intruder = PREFIX + LockNames.encode(name) + "/intruder";
        get(root.getKVClient().put(bytes(intruder), bytes("x")));
        assertThatThrownBy(() -> b.lock(name).tryAcquire()).isInstanceOf(LockConfigurationException.class);
        assertThat(held.isValid()).isTrue();
        assertThat(held.release()).isTrue();
        assertThatThrownBy(() -> b.lock(name).tryAcquire())
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining(intruder);
        get(root.getKVClient().delete(bytes(intruder)));
    }

    @Test
    void holderKeyDeletedBySomeoneElse_leaseLost_nextTokenLarger() throws Exception {
        String name = "deleted-by-other";
        EtcdLockProvider a = lockUser();
        EtcdLockProvider b = lockUser();
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        List<KeyValue> kvs = keys(name);
        assertThat(kvs).hasSize(1);
        get(root.getKVClient().delete(kvs.get(0).getKey()));
        await().atMost(Duration.ofSeconds(5))
                .until(() -> held.lost().toCompletableFuture().isDone());
        assertThat(held.isValid()).isFalse();
        Lease next = b.lock(name).tryAcquire().orElseThrow();
        assertThat(next.fencingToken().getAsLong())
                .isGreaterThan(held.fencingToken().getAsLong());
        assertThat(held.release()).isFalse();
        assertThat(next.isValid()).isTrue();
        assertThat(a.lock(name).tryAcquire()).isEmpty();
        assertThat(next.release()).isTrue();
    }

    @Test
    void holderKeyOverwrittenBySomeoneElse_stillOneHolder() throws Exception {
        String name = "overwritten-by-other";
        EtcdLockProvider a = lockUser();
        EtcdLockProvider b = lockUser();
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        ByteSequence key = keys(name).get(0).getKey();
        // a put keeps the key's create revision but detaches it from the holder's lease
        get(root.getKVClient().put(key, bytes("hijacked")));
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        assertThat(held.isValid()).isTrue();
        assertThat(held.release()).isTrue();
        Lease next = b.lock(name).tryAcquire().orElseThrow();
        assertThat(next.release()).isTrue();
    }

    private List<KeyValue> keys(String name) throws Exception {
        return get(root.getKVClient()
                        .get(
                                bytes(PREFIX + LockNames.encode(name) + "/"),
                                GetOption.builder().isPrefix(true).build()))
                .getKvs();
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    /**
     * The whole session with every logger at TRACE: no secret anywhere except in gRPC's HTTP/2
     * frame dumps ({@code io.grpc.netty.NettyClientHandler} at DEBUG), which carry the password of
     * the Authenticate request in hex — documented in README.md, and announced by the provider's
     * WARN {@code distlock.etcd.grpc_frames_logged}. If this fails because the dump no longer shows
     * the password, gRPC changed: update README.md and the warning.
     */
    @Test
    void secrets_wholeSessionWithClientLoggersAtTrace_onlyInGrpcFrameDumpsWhichAreWarnedAbout() {
        String uri = "etcd://" + USER + ":" + URLEncoder.encode(PASSWORD, StandardCharsets.UTF_8) + "@"
                + etcd.address() + "/distlock/?tls=true&leaseTime=2s&trustCertificates="
                + URLEncoder.encode(certs.caCertificate().toString(), StandardCharsets.UTF_8);
        String logged =
                LogCapture.wholeSessionAtTrace(() -> LockProviders.open(URI.create(uri)), "trace-capture", () -> {});
        assertThat(logged)
                .contains("WARN io.distlock.etcd.internal.EtcdClients - distlock.etcd.grpc_frames_logged"
                        + " logger=io.grpc.netty.NettyClientHandler");
        String frameDumps = logged.lines()
                .filter(line -> line.contains(" io.grpc.netty.NettyClientHandler - "))
                .collect(java.util.stream.Collectors.joining("\n"));
        String rest = logged.lines()
                .filter(line -> !line.contains(" io.grpc.netty.NettyClientHandler - "))
                .collect(java.util.stream.Collectors.joining("\n"));
        LogCapture.assertNoSecret(rest, PASSWORD);
        LogCapture.assertNoSecret(rest, ROOT_PASSWORD);
        assertThatThrownBy(() -> LogCapture.assertNoSecret(frameDumps, PASSWORD))
                .as("gRPC's frame dump of the Authenticate request, as README.md documents")
                .hasMessageContaining("appears hex");
    }
}
