package io.distlock.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.testing.servers.MariaDbServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The smoke profile against the backends without replicas (CI; {@link NemesisReplicatedRedisIT} runs
 * the others beside it), and the suite proving itself: the clients share the parent's monotonic clock,
 * and a broken backend is caught.
 */
class NemesisIT {
    private static MariaDbServer db;

    @BeforeAll
    static void startResource() {
        db = MariaDbServer.start();
    }

    @AfterAll
    static void stopResource() {
        if (db != null) {
            db.close();
        }
    }

    /** A process's whole command line from /proc (ProcessHandle.Info leaves out long ones), or "". */
    private static String commandLine(ProcessHandle h) {
        try {
            return Files.readString(Paths.get("/proc", Long.toString(h.pid()), "cmdline"), StandardCharsets.UTF_8);
        } catch (java.io.IOException gone) {
            return "";
        }
    }

    private static void log(String line) {
        System.out.println("[nemesis] " + line);
    }

    @Test
    void clock_parentAndChildJvms_readOneMonotonicClock() throws Exception {
        Resource resource = new Resource(db.jdbcUrl(), db.user(), db.password());
        resource.openAccount("clock-check");
        List<Event> events = Collections.synchronizedList(new ArrayList<>());
        ClientProcess.Spec spec = new ClientProcess.Spec(
                null, "clock", db.jdbcUrl(), db.user(), db.password(), "clock-check", 1000, 20, true);
        long before = System.nanoTime();
        List<ClientProcess> clients = new ArrayList<>();
        try {
            for (int i = 1; i <= 2; i++) {
                clients.add(ClientProcess.start(
                        "k" + i, spec, System.getProperty("java.class.path"), events::add, Duration.ofSeconds(60)));
            }
            // the database password is in the children's environment, not on their command lines
            // (which every user of the machine can read with ps)
            assertThat(ProcessHandle.current().descendants().map(NemesisIT::commandLine))
                    .anyMatch(line -> line.contains(NemesisClientMain.class.getName()))
                    .noneMatch(line -> line.contains(db.password()));
            String result = ClockCheck.check(clients, 20);
            assertThat(result).startsWith("ok");
            clients.forEach(c -> c.stop(Duration.ofSeconds(10)));
        } finally {
            clients.forEach(ClientProcess::close);
        }
        long after = System.nanoTime();
        // every event a child stamped lies inside the parent's window around the children's lives
        synchronized (events) {
            assertThat(events)
                    .isNotEmpty()
                    .allSatisfy(e -> assertThat(e.nanos()).isBetween(before, after));
        }
    }

    @Test
    void sample_clientWithSeveralLockThreads_reportsEachThreadAndItsHeapAfterAFullGc() throws Exception {
        Resource resource = new Resource(db.jdbcUrl(), db.user(), db.password());
        resource.openAccount("sample-check");
        List<Event> events = Collections.synchronizedList(new ArrayList<>());
        List<SoakResults.ClientSample> samples = Collections.synchronizedList(new ArrayList<>());
        ClientProcess.Spec spec = new ClientProcess.Spec(
                null, "sample", db.jdbcUrl(), db.user(), db.password(), "sample-check", 1000, 20, true, 4);
        try (ClientProcess c = ClientProcess.start(
                "s1", spec, System.getProperty("java.class.path"), events::add, Duration.ofSeconds(60))) {
            c.onSample(samples::add);
            c.sample(0);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> samples.size() == 1);
            c.sample(1);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> samples.size() == 2);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
                synchronized (events) {
                    return events.stream().map(Event::client).distinct().count() == 4;
                }
            });
            c.stop(Duration.ofSeconds(10));
        }

        assertThat(samples).extracting(SoakResults.ClientSample::client).containsOnly("s1");
        assertThat(samples).extracting(SoakResults.ClientSample::minute).containsExactly(0, 1);
        assertThat(samples).allSatisfy(s -> {
            assertThat(s.heapBytes()).as("live heap after a full GC").isBetween(1L, 96L * 1024 * 1024);
            assertThat(s.threads()).as("4 lock threads and the JVM's own").isGreaterThan(4);
        });
        // no full GC can run by itself between two samples a moment apart: the second one forced it
        assertThat(samples.get(1).forced()).isTrue();
        synchronized (events) {
            assertThat(events).extracting(Event::client).containsOnly("s1.t1", "s1.t2", "s1.t3", "s1.t4");
        }
    }

    @Test
    void brokenBackend_sameTokenForEveryone_failsTheRun() throws Exception {
        Results.Backend r = NemesisMain.runOne(Profile.smoke(), "broken", db, NemesisIT::log);

        assertThat(r.ok()).isFalse();
        assertThat(r.failures()).anyMatch(f -> f.contains("reused token"));
        assertThat(r.total(Results.Phase::overlaps)).isPositive();
    }

    @Test
    void smoke_unreplicatedBackends_noStaleOrOutOfOrderWriteAcceptedAndNoLostUpdate() throws Exception {
        List<String> backends = Topology.BACKENDS.stream()
                .filter(b -> !NemesisReplicatedRedisIT.BACKENDS.contains(b))
                .toList();
        Results.Run run = SmokeRun.run(db, backends, "nemesis-smoke", NemesisIT.class);

        Results.Backend zk = SmokeRun.backend(run, "zookeeper");
        assertThat(zk.phases()).extracting(Results.Phase::fault).contains(FaultKind.RESTART_MEMBER_LOSE_DATA.id());
        // an etcd member replaced without its data (leader, then follower): the majority keeps the data
        Results.Backend etcd = SmokeRun.backend(run, "etcd");
        assertThat(etcd.phases())
                .filteredOn(p -> p.fault().equals(FaultKind.RESTART_MEMBER_LOSE_DATA.id()))
                .as("etcd: the leader, then a follower, restarted without data")
                .hasSize(2)
                .allSatisfy(p -> {
                    assertThat(p.overlaps()).as("never granted twice").isZero();
                    assertThat(p.recoveryMs()).as("recovered").isNotNegative();
                })
                .extracting(Results.Phase::description)
                .satisfiesExactly(
                        d -> assertThat(d).startsWith("the leader"),
                        d -> assertThat(d).startsWith("a follower"));
        // the MySQL lock server restarted empty: the resource (another server) rejects the writes of
        // the holders from before the restart; none is accepted out of order
        Results.Backend mysql = SmokeRun.backend(run, "mysql");
        assertThat(mysql.phases())
                .filteredOn(p -> p.fault().equals(FaultKind.RESTART_SERVER_LOSE_DATA.id()))
                .singleElement()
                .satisfies(p -> {
                    assertThat(p.staleRejected()).isPositive();
                    assertThat(p.outOfOrder()).isZero();
                });
    }
}
