package io.distlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.redis.core.Scripts;
import io.distlock.redlock.RedlockLockOptions;
import io.distlock.spi.LockEngine;
import io.distlock.testing.faults.TcpProxy;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;

/**
 * The fencing round of a lock name's first acquisition, when the nodes answer at different speeds:
 * what a cold start on a loaded machine does (first connections, first replies slow on some nodes
 * and not on others), made deterministic with {@link TcpProxy} latencies.
 *
 * <p>A name's first acquisition starts each granting node's counter at that node's clock, so the
 * counters are apart and round 2 runs. Nodes whose round-1 reply comes after the round was decided
 * (here nodes 3 and 4, whose requests reach the server late) granted the lock later, so their
 * counters start later, above the token {@code t}: they already hold a value of at least {@code t}
 * under our lock, which is all the register needs of them. If one of the nodes that decided round 1
 * is then slow in round 2 (node 2: its replies are late, and its script cache lacks {@code
 * REDLOCK_RAISE}, so the raise costs two more round trips, as a node that restarted does), the
 * late nodes are the majority's only chance.
 */
class FencingLateRepliesIT {
    /**
     * Node timeout: node 2's replies (400 ms) are in time for one request, not for three; nodes 3
     * and 4 answer each request in 500 ms.
     */
    private static final Duration NODE_TIMEOUT = Duration.ofMillis(600);

    private static final LockOptions LOCK_OPTIONS =
            LockOptions.builder().leaseTime(Duration.ofSeconds(5)).build();

    private RedisServers servers;
    private final List<TcpProxy> proxies = new ArrayList<>();
    private RedlockDriver driver;
    private LockEngine engine;

    @BeforeEach
    void start() {
        servers = RedisServers.independentMasters(5);
        List<NodeAddress> addresses = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            RedisServer s = servers.get(i);
            if (i < 2) {
                addresses.add(NodeAddress.of(new HostAndPort(s.host(), s.port())));
            } else {
                TcpProxy p = TcpProxy.start(s.host(), s.port());
                proxies.add(p);
                addresses.add(NodeAddress.of(new HostAndPort(p.host(), p.port())));
            }
        }
        driver = RedlockDriver.create(
                addresses,
                RedlockLockOptions.builder()
                        .nodeTimeout(NODE_TIMEOUT)
                        .poolSize(2)
                        .build(),
                LOCK_OPTIONS);
        engine = LockEngine.create(driver, LOCK_OPTIONS);
        // warm: every node's direct connections open and its pool in use, before the latencies
        await().atMost(Duration.ofSeconds(10))
                .until(() -> driver.nodes().stream().allMatch(n -> n.directConnections() > 0));
        for (int i = 0; i < 3; i++) {
            assertThat(engine.lock("warm").tryAcquire().orElseThrow().release()).isTrue();
        }
    }

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.close();
        }
        proxies.forEach(TcpProxy::close);
        if (servers != null) {
            servers.close();
        }
    }

    @Test
    void firstAcquisition_lateGrantsAboveTheToken_countForTheFencingRound() throws Exception {
        String name = "w-4";
        // node 0 starts the name's counter where a clock 300 ms ahead would: it sets the token,
        // nodes 1 and 2 need a raise, and nodes 3 and 4 (whose clocks read 500 ms later) are above it
        String[] time = servers.get(0).call("TIME").split("[\\[\\], ]+");
        long clockMicros = Long.parseLong(time[1]) * 1_000_000 + Long.parseLong(time[2]);
        servers.get(0).call("SET", driver.keys().tokenKey(name), Long.toString(clockMicros + 300_000));
        withoutRaiseScript(servers.get(2));
        // node 2 runs each script at once and answers 400 ms later; nodes 3 and 4 run theirs 500 ms
        // after it was sent and answer at once: round 1 is decided by nodes 0, 1 and 2 at ~400 ms
        proxies.get(0).setLatency(TcpProxy.Direction.DOWNSTREAM, Duration.ofMillis(400));
        proxies.get(1).setLatency(TcpProxy.Direction.UPSTREAM, Duration.ofMillis(500));
        proxies.get(2).setLatency(TcpProxy.Direction.UPSTREAM, Duration.ofMillis(500));

        Lease lease = engine.lock(name).tryAcquire().orElseThrow();
        long token = lease.fencingToken().orElseThrow();
        assertThat(token).as("the token: node 0's counter").isEqualTo(clockMicros + 300_001);
        List<Long> counters = counters(name);
        assertThat(counters.get(1)).as("node 1's counter (raised)").isEqualTo(token);
        // nodes 3 and 4 run their round 1 when the proxy delivers it, which a busy machine may do after
        // the acquisition returned
        await("nodes 3 and 4 granted late, their counters above the token")
                .atMost(Duration.ofSeconds(5))
                .until(() -> counters(name).get(3) > token && counters(name).get(4) > token);
        assertThat(lease.release()).isTrue();

        proxies.forEach(p -> p.setLatency(Duration.ZERO));
        Lease next = engine.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
        assertThat(next.fencingToken().orElseThrow())
                .as("the next holder's token")
                .isGreaterThan(token);
        assertThat(next.release()).isTrue();
    }

    @Test
    void fencingRound_noMajority_saysHowManyGrantedRefusedAndDidNotAnswer() throws Exception {
        String name = "w-5";
        // node 0's counter is far ahead: it sets the token, and nodes 1 and 2 need a raise
        servers.get(0).call("SET", driver.keys().tokenKey(name), "9000000000000000");
        withoutRaiseScript(servers.get(2));
        proxies.get(0).setLatency(TcpProxy.Direction.DOWNSTREAM, Duration.ofMillis(400));
        proxies.get(1).blackhole(TcpProxy.Direction.UPSTREAM);
        proxies.get(2).blackhole(TcpProxy.Direction.UPSTREAM);

        assertThatThrownBy(() -> engine.lock(name).tryAcquire())
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("fencing round for lock 'w-5' did not reach a majority: 2 of 5 Redlock nodes"
                        + " granted, 0 refused and 3 did not answer (node timeout 600 ms), a majority of 3 is needed;"
                        + " unreachable: ")
                .hasMessageContaining(proxies.get(0).address() + " (no reply in time)");
    }

    /** Empties {@code node}'s script cache and loads every script but {@code REDLOCK_RAISE}. */
    private static void withoutRaiseScript(RedisServer node) throws Exception {
        node.call("SCRIPT", "FLUSH");
        for (Scripts.Script s : List.of(
                Scripts.REDLOCK_ACQUIRE,
                Scripts.REDLOCK_ACQUIRE_QUEUED,
                Scripts.RENEW,
                Scripts.REDLOCK_RELEASE,
                Scripts.RELEASE,
                Scripts.REDLOCK_RELEASE_AFTER,
                Scripts.REDLOCK_LEAVE)) {
            node.call("SCRIPT", "LOAD", s.text());
        }
    }

    /** Each node's counter of {@code name} (0 if it has none). */
    private List<Long> counters(String name) throws Exception {
        List<Long> out = new ArrayList<>();
        for (RedisServer s : servers.servers()) {
            String c = s.call("GET", driver.keys().tokenKey(name)).trim();
            out.add(c.isEmpty() ? 0L : Long.parseLong(c));
        }
        return out;
    }
}
