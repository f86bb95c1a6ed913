package io.distlock.redlock;

import static io.distlock.redlock.RedlockTestAccess.lockKey;
import static io.distlock.redlock.RedlockTestAccess.tokenKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockConfigurationException;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.build.ReadmeExamples;
import io.distlock.testing.LogCapture;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * Per-node credentials: three real masters, each with a different {@code default} password and a
 * different ACL user (the documented minimal rule). Node 1 and 2 are reached as their ACL users,
 * node 3 as its {@code default} user (password only).
 */
@Timeout(60)
class RedlockPerNodeCredentialsIT {
    private static final String[] ADMIN = {"admin-A-0c1d", "admin-B-77e2", "admin-C-a9f0"};
    private static final String[] USERS = {"locks-a", "locks-b", null};
    private static final String[] PASSWORDS = {"pw-node-A-1f3e9b", "pw-node-B-52c0d4", ADMIN[2]};
    private static final String WRONG = "wrong-Pw-d00d-4711";

    private static final List<RedisServer> servers = new ArrayList<>();

    private final List<LockProvider> providers = new ArrayList<>();
    private String name;

    @BeforeAll
    static void startNodes() throws IOException {
        for (int i = 0; i < 3; i++) {
            int n = i;
            servers.add(RedisServers.independentMasters(1, b -> b.password(ADMIN[n]))
                    .get(0));
        }
        for (int i = 0; i < 2; i++) {
            List<String> cmd = new ArrayList<>(List.of("ACL", "SETUSER", USERS[i], "reset", "on", ">" + PASSWORDS[i]));
            cmd.addAll(List.of(RedlockSecurityIT.ACL_RULE.split(" ")));
            assertThat(servers.get(i).call(cmd.toArray(new String[0]))).isEqualTo("OK");
        }
    }

    @AfterAll
    static void stopNodes() {
        servers.forEach(RedisServer::close);
        servers.clear();
    }

    @BeforeEach
    void name(TestInfo info) throws IOException {
        name = "per-node/" + info.getTestMethod().orElseThrow().getName();
        for (RedisServer s : servers) {
            s.call("ACL", "LOG", "RESET");
        }
    }

    @AfterEach
    void close() {
        providers.forEach(LockProvider::close);
    }

    private RedlockLockProvider client(String... passwords) {
        RedisServer a = servers.get(0);
        RedisServer b = servers.get(1);
        RedisServer c = servers.get(2);
        String passwordA = passwords[0];
        String passwordB = passwords[1];
        String passwordC = passwords[2];
        // README-BEGIN per-node-credentials
        RedlockLockProvider locks = RedlockLockProvider.builder()
                .node(a.host(), a.port(), Credentials.of("locks-a", passwordA)) // ACL user of node a
                .node(b.host(), b.port(), Credentials.of("locks-b", passwordB)) // another user on node b
                .node(c.host(), c.port(), Credentials.password(passwordC)) // the default user of node c
                .options(RedlockLockOptions.builder()
                        .nodeTimeout(Duration.ofMillis(200))
                        .build())
                .leaseTime(Duration.ofSeconds(2))
                .build();
        // README-END
        providers.add(locks);
        return locks;
    }

    private static String allPasswords() {
        return String.join("|", PASSWORDS) + "|" + String.join("|", ADMIN) + "|" + WRONG;
    }

    @Test
    void builder_differentCredentialsPerNode_lockWorksWithoutAnyDeniedCommand() throws Exception {
        RedlockLockProvider p = client(PASSWORDS);
        RedlockLockProvider q = client(PASSWORDS);
        String logged = LogCapture.during(() -> {
            Lease lease = p.lock(name).tryAcquire().orElseThrow();
            assertThat(q.lock(name).tryAcquire()).isEmpty();
            assertThat(lease.release()).isTrue();
            Lease next = q.lock(name).tryAcquire().orElseThrow();
            assertThat(next.fencingToken().getAsLong())
                    .isGreaterThan(lease.fencingToken().getAsLong());
            assertThat(next.release()).isTrue();
        });
        String key = lockKey(p, name);
        for (RedisServer s : servers) {
            assertThat(s.call("EXISTS", tokenKey(p, name)))
                    .as("token key on " + s)
                    .isEqualTo("1");
            // a release returns once a majority deleted the key: the last node's delete may still be on its way
            await("lock key deleted on " + s)
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> s.call("EXISTS", key).equals("0"));
        }
        for (int i = 0; i < 2; i++) {
            assertThat(servers.get(i).call("ACL", "LOG"))
                    .as("denied on node " + i)
                    .isEqualTo("[]");
        }
        assertThat(logged).doesNotContainPattern(allPasswords()).doesNotContain("node_failed");
        assertThat(p.toString()).doesNotContainPattern(allPasswords());
    }

    @Test
    void oneNodeWithWrongPassword_lockWorksOnMajorityAndTheNodeIsReportedByAddress() throws Exception {
        RedisServer b = servers.get(1);
        String logged = LogCapture.during(() -> {
            RedlockLockProvider p = client(PASSWORDS[0], WRONG, PASSWORDS[2]);
            RedlockLockProvider q = client(PASSWORDS);
            Lease lease = p.lock(name).tryAcquire().orElseThrow();
            assertThat(lease.fencingToken()).isPresent();
            assertThat(q.lock(name).tryAcquire()).as("held on a majority").isEmpty();
            assertThat(lease.release()).isTrue();
            assertThat(q.lock(name).tryAcquire()).isPresent();
        });
        assertThat(logged)
                .contains("distlock.redlock.node_failed node=" + b.address())
                .contains("WRONGPASS")
                .doesNotContainPattern(allPasswords());
        assertThat(logged.lines().filter(l -> l.contains("node_failed")))
                .as("one WARN per failing node")
                .hasSize(1)
                .allSatisfy(l -> assertThat(l).contains("WARN"));
    }

    @Test
    void twoNodesWithWrongCredentials_configurationErrorAtOnceNamingBothNodesWithoutPasswords() {
        RedlockLockProvider p = client(WRONG, PASSWORDS[1], WRONG);
        long start = System.nanoTime();
        String logged =
                LogCapture.during(() -> assertThatThrownBy(() -> p.lock(name).tryAcquire(Duration.ofSeconds(5)))
                        .isInstanceOf(LockConfigurationException.class)
                        .hasMessageContaining("a majority of 2 is needed")
                        .hasMessageContaining(servers.get(0).address() + " (")
                        .hasMessageContaining(servers.get(2).address() + " (")
                        .hasMessageContaining("WRONGPASS")
                        .satisfies(e -> assertThat(LogCapture.fullText(e)).doesNotContainPattern(allPasswords())));
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("not retried within the wait")
                .isLessThan(Duration.ofMillis(1000));
        assertThat(logged).doesNotContainPattern(allPasswords());
    }

    @Test
    void uri_perNodeParameters_overrideTheSharedCredentials() throws IOException {
        String uri = "redlock://" + USERS[0] + ":" + PASSWORDS[0] + "@"
                + servers.get(0).address() + ","
                + servers.get(1).address() + "," + servers.get(2).address()
                + "?nodeTimeout=200ms&node2.username=" + USERS[1] + "&node2.password=" + PASSWORDS[1]
                + "&node3.password=" + PASSWORDS[2];
        String logged = LogCapture.during(() -> {
            LockProvider p = LockProviders.open(uri);
            providers.add(p);
            Lease lease = p.lock(name).tryAcquire().orElseThrow();
            assertThat(lease.release()).isTrue();
            assertThat(p.toString()).doesNotContainPattern(allPasswords());
        });
        assertThat(logged).doesNotContainPattern(allPasswords()).doesNotContain("node_failed");
        for (int i = 0; i < 2; i++) {
            assertThat(servers.get(i).call("ACL", "LOG")).isEqualTo("[]");
        }
    }

    @Test
    void readme_perNodeExample_isTheTestedOne() throws IOException {
        ReadmeExamples.assertSnippetMatchesSource(
                Path.of("README.md"),
                Path.of("src/test/java/io/distlock/redlock/RedlockPerNodeCredentialsIT.java"),
                "per-node-credentials");
    }
}
