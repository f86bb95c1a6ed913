package io.distlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.tck.history.HistoryChecker;
import io.distlock.tck.history.HistoryEvent;
import io.distlock.tck.history.HistoryRecorder;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The majority max-register under fire: four clients race for one lock on five nodes while a chaos
 * thread keeps losing one or two nodes at a time (SIGSTOP/SIGCONT, or kill -9 and restart with the
 * data kept by {@code appendfsync always}). The history checker then verifies that no two valid
 * holders overlapped and that fencing tokens strictly increased in acquisition order.
 */
class RedlockFencingRaceIT {
    private static final Duration RUN = Duration.ofSeconds(8);
    private static final int CLIENTS = 4;

    @Test
    void tokens_racingAcquirersWithRandomNodeLoss_neverRepeatOrDecrease() throws Exception {
        try (RedisServers nodes = RedisServers.independentMasters(5, true)) {
            LockOptions lockOptions =
                    LockOptions.builder().leaseTime(Duration.ofSeconds(1)).build();
            RedlockLockOptions options = RedlockLockOptions.builder()
                    .nodeTimeout(Duration.ofMillis(150))
                    .maxRetryDelay(Duration.ofMillis(20))
                    .build();
            List<RedlockLockProvider> clients = new ArrayList<>();
            HistoryRecorder history = new HistoryRecorder();
            CountDownLatch stop = new CountDownLatch(1);
            AtomicInteger holds = new AtomicInteger();
            AtomicInteger unavailable = new AtomicInteger();
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            try {
                for (int i = 0; i < CLIENTS; i++) {
                    clients.add(RedlockLockProvider.builder()
                            .nodes(nodes.addresses().split(","))
                            .options(options)
                            .lockOptions(lockOptions)
                            .build());
                }
                for (int i = 0; i < CLIENTS; i++) {
                    RedlockLockProvider p = clients.get(i);
                    String client = "client-" + i;
                    threads.add(start(
                            "race-" + client,
                            () -> {
                                while (stop.getCount() > 0) {
                                    try {
                                        Optional<Lease> got = p.lock("race").tryAcquire(Duration.ofMillis(300));
                                        if (got.isEmpty()) {
                                            continue;
                                        }
                                        Lease lease = got.get();
                                        HistoryRecorder.Hold hold = history.acquired(client, lease);
                                        holds.incrementAndGet();
                                        if (lease.isValid()) {
                                            hold.valid(lease);
                                        }
                                        hold.released();
                                        lease.release();
                                    } catch (BackendUnavailableException e) {
                                        if (unavailable.incrementAndGet() % 100 == 1) {
                                            System.out.println("RedlockFencingRaceIT: unavailable: " + e.getMessage());
                                        }
                                    }
                                }
                            },
                            unexpected));
                }
                threads.add(start("race-chaos", () -> chaos(nodes, stop), unexpected));
                stop.await(RUN.toMillis(), TimeUnit.MILLISECONDS);
            } finally {
                stop.countDown();
                for (Thread t : threads) {
                    t.join(TimeUnit.SECONDS.toMillis(20));
                }
                for (RedisServer s : nodes.servers()) {
                    if (!s.isRunning()) {
                        s.restart(true);
                    }
                }
                clients.forEach(RedlockLockProvider::close);
            }
            System.out.printf(
                    "RedlockFencingRaceIT: %d holds, %d attempts failed on unavailable nodes, %d events%n",
                    holds.get(), unavailable.get(), history.events().size());
            assertThat(unexpected.get()).as("unexpected failure in a worker").isNull();
            List<HistoryEvent> events = history.events();
            HistoryChecker.Result result = HistoryChecker.perLock().check(events);
            assertThat(result.ok()).as("history: %s", result.describe()).isTrue();
            assertThat(holds.get())
                    .as("holds in %s (%d attempts failed on unavailable nodes)", RUN, unavailable.get())
                    .isGreaterThanOrEqualTo(30);
        }
    }

    private static void chaos(RedisServers nodes, CountDownLatch stop) throws InterruptedException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (stop.getCount() > 0) {
            int count = 1 + random.nextInt(2);
            List<RedisServer> victims = new ArrayList<>();
            while (victims.size() < count) {
                RedisServer s = nodes.get(random.nextInt(nodes.size()));
                if (!victims.contains(s)) {
                    victims.add(s);
                }
            }
            boolean kill = random.nextBoolean();
            for (RedisServer s : victims) {
                if (kill) {
                    s.kill();
                } else {
                    s.pause();
                }
            }
            stop.await(100 + random.nextInt(300), TimeUnit.MILLISECONDS);
            for (RedisServer s : victims) {
                if (kill) {
                    s.restart(true);
                } else {
                    s.resume();
                }
            }
            stop.await(50 + random.nextInt(150), TimeUnit.MILLISECONDS);
        }
    }

    private interface Body {
        void run() throws Exception;
    }

    private static Thread start(String name, Body body, AtomicReference<Throwable> failure) {
        Thread t = new Thread(
                () -> {
                    try {
                        body.run();
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                },
                name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
