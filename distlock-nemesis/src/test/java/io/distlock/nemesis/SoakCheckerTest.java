package io.distlock.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToLongFunction;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The soak checker on hand-made runs: per-minute counts, and the growth rule both ways — a flat or
 * slightly noisy figure passes, a growing one fails, and only the kept client JVMs are judged.
 */
class SoakCheckerTest {
    private static final long MS = 1_000_000L;
    /** A "minute" of these runs: 1 s. */
    private static final long MINUTE = 1000 * MS;

    private static final double MIB = 1024 * 1024;
    private static final List<String> KEPT = List.of("c1", "c2");

    private final List<Event> events = new ArrayList<>();
    private final List<Resource.Write> writes = new ArrayList<>();
    private final List<Results.Window> windows =
            new ArrayList<>(List.of(new Results.Window("baseline", "no fault", "none", 0, 0, "", false)));
    private final List<SoakResults.ClientSample> samples = new ArrayList<>();
    private final List<SoakResults.ServerSample> servers = new ArrayList<>();

    /** A holding of {@code client} at {@code atMs} that waited {@code waitMs} and wrote (reading {@code balance}). */
    private void round(String client, long hold, long token, long atMs, long waitMs, long balance) {
        events.add(new Event(client, "ACQUIRED", atMs * MS, hold, token, (atMs + 1000) * MS, "wait=" + waitMs * MS));
        events.add(new Event(client, "WRITE_OK", (atMs + 5) * MS, hold, token, Event.NONE, Long.toString(balance)));
        writes.add(new Resource.Write(writes.size() + 1, token, client, hold, balance));
        events.add(new Event(client, "RELEASED", (atMs + 6) * MS, hold, token, Event.NONE, ""));
    }

    /** {@code perMinute} clean rounds in each of {@code minutes} minutes, alternating c1 and c2. */
    private void cleanRounds(int minutes, int perMinute) {
        long token = 1;
        for (int m = 0; m < minutes; m++) {
            for (int i = 0; i < perMinute; i++) {
                String client = i % 2 == 0 ? "c1" : "c2";
                round(client, token, token, m * 1000 + 10 + i * 50L, 1 + i, writes.size());
                token++;
            }
        }
    }

    /** A sample of every minute from every client in {@code clients}: heap and threads as given. */
    private void sample(List<String> clients, int minutes, IntToLongFunction heapMiB, int threads) {
        for (String c : clients) {
            for (int m = 0; m < minutes; m++) {
                samples.add(
                        new SoakResults.ClientSample(c, m, (long) (heapMiB.applyAsLong(m) * MIB), threads, 0, true));
            }
        }
    }

    /** A sample of every minute from every client in {@code clients}: 10 MiB of heap, threads by minute. */
    private void sampleThreads(List<String> clients, int minutes, IntUnaryOperator threads) {
        for (String c : clients) {
            for (int m = 0; m < minutes; m++) {
                samples.add(new SoakResults.ClientSample(c, m, (long) (10 * MIB), threads.applyAsInt(m), 0, true));
            }
        }
    }

    /**
     * A client's threads in a 30-minute run whose pools grow to 50 threads while a fault is under way and
     * shrink to about 31 after it: the last window happens to sample more minutes with a fault (its
     * median 41 against 31), its floor does not move.
     */
    private static int swing(int minute) {
        return minute < 10 ? (minute % 3 == 0 ? 50 : 31) : (minute % 2 == 0 ? 50 : 32);
    }

    private void servers(int minutes, IntToLongFunction connections) {
        for (int m = 0; m < minutes; m++) {
            servers.add(new SoakResults.ServerSample(m, connections.applyAsLong(m), 50 * 1024 * 1024, 1, 1));
        }
    }

    private SoakResults.Backend check(int minutes) {
        Checker.Input nemesis = new Checker.Input(
                "test",
                "hand-made",
                "MONOTONIC_PER_LOCK",
                "HELD_LOCKS_SURVIVE",
                true,
                false,
                16,
                1000,
                0,
                minutes * MINUTE + 500 * MS,
                "ok: test",
                events,
                windows,
                writes,
                writes.isEmpty() ? 0 : writes.get(writes.size() - 1).balanceBefore() + 1);
        Results.Backend checked = Checker.check(nemesis);
        return SoakChecker.check(new SoakChecker.Input(
                nemesis,
                checked,
                0,
                MINUTE,
                minutes,
                KEPT,
                3,
                8,
                "pause-holder",
                "test connections",
                samples,
                servers));
    }

    @Test
    void check_flatRun_passesAndCountsEachMinute() {
        cleanRounds(3, 4);
        windows.add(new Results.Window("pause-holder", "pause", "pause", 1500 * MS, 1800 * MS, "", false));
        sample(List.of("c1", "c2", "c3"), 3, m -> 10, 20);
        servers(3, m -> 6);

        SoakResults.Backend r = check(3);

        assertThat(r.failures()).isEmpty();
        assertThat(r.windowMinutes())
                .as("a 3-minute run compares its first third with its last")
                .isEqualTo(1);
        assertThat(r.minutes()).extracting(SoakResults.Minute::acquisitions).containsExactly(4, 4, 4);
        assertThat(r.minutes()).extracting(SoakResults.Minute::writesAccepted).containsExactly(4, 4, 4);
        assertThat(r.minutes()).extracting(SoakResults.Minute::faults).containsExactly("", "pause-holder", "");
        assertThat(r.minutes()).extracting(SoakResults.Minute::p99AcquireMs).containsExactly(4.0, 4.0, 4.0);
        assertThat(r.acquisitions()).isEqualTo(12);
        assertThat(r.forcedGcs()).as("only the kept JVMs' samples").isEqualTo(6);
        assertThat(r.growth())
                .extracting(SoakResults.Growth::metric)
                .containsExactly("heap", "threads", "connections", "server memory", "p99 acquire");
        assertThat(r.growth()).noneMatch(SoakResults.Growth::grew);
    }

    @Test
    void check_keptClientHeapGrows_failsNamingIt() {
        cleanRounds(30, 2);
        sample(List.of("c1"), 30, m -> 10, 20);
        sample(List.of("c2"), 30, m -> 10 + m / 2, 20); // 10 MiB to 24 MiB
        servers(30, m -> 6);

        SoakResults.Backend r = check(30);

        assertThat(r.windowMinutes()).isEqualTo(10);
        assertThat(r.failures()).singleElement().asString().contains("heap grew", "(c2)");
        assertThat(r.growth().get(0)).satisfies(g -> {
            assertThat(g.where()).isEqualTo("c2");
            assertThat(g.first()).isEqualTo(12.0); // median of minutes 0-9: 10,10,11,11,12,12,13,13,14,14
            assertThat(g.last()).isEqualTo(22.0);
        });
    }

    @Test
    void check_noiseWithinTheTolerance_passes() {
        cleanRounds(24, 2);
        // heap wanders by up to 1.5 MiB (under the 2 MiB slack), threads by 2, connections by 2
        sample(List.of("c1", "c2"), 24, m -> m % 3 == 0 ? 41 : 40, 0);
        samples.replaceAll(s -> new SoakResults.ClientSample(
                s.client(),
                s.minute(),
                s.heapBytes() + (s.minute() >= 14 ? (long) (1.5 * MIB) : 0),
                20 + (s.minute() >= 14 ? 2 : 0),
                1,
                false));
        servers(24, m -> m >= 14 ? 8 : 6);

        SoakResults.Backend r = check(24);

        assertThat(r.failures()).isEmpty();
        assertThat(r.fullGcs()).isEqualTo(48);
        assertThat(r.forcedGcs()).isZero();
    }

    @Test
    void check_threadsGrow_fails() {
        cleanRounds(21, 1);
        sampleThreads(KEPT, 21, m -> 20 + m);
        servers(21, m -> 6);

        SoakResults.Backend r = check(21);

        assertThat(r.failures()).singleElement().asString().contains("threads grew");
    }

    @Test
    void check_threadsThatComeAndGoWithTheFaults_judgedOnTheLowerQuartile_pass() {
        cleanRounds(30, 1);
        sampleThreads(KEPT, 30, SoakCheckerTest::swing);
        servers(30, m -> 6);

        SoakResults.Backend r = check(30);

        assertThat(r.failures()).isEmpty();
        assertThat(r.growth().get(1)).satisfies(g -> {
            assertThat(g.metric()).isEqualTo("threads");
            assertThat(g.first()).isEqualTo(31.0);
            assertThat(g.last()).isEqualTo(32.0);
        });
        assertThat(SoakChecker.median(java.util.Map.of(0, 32.0, 1, 50.0, 2, 32.0, 3, 50.0), 0, 4))
                .as("the same last window by its median")
                .isEqualTo(41.0);
    }

    @Test
    void check_threadsLeakingUnderTheSwing_fail() {
        cleanRounds(30, 1);
        // a swing with one thread more that stays every minute: the floor rises from 31 to above 50
        sampleThreads(KEPT, 30, m -> Math.min(60, 31 + m) + (m % 2) * 10);
        servers(30, m -> 6);

        SoakResults.Backend r = check(30);

        assertThat(r.failures()).singleElement().asString().contains("threads grew");
    }

    @Test
    void rejudged_recordedRun_growthJudgedAgainFromItsSamples_otherFailuresKept() {
        cleanRounds(30, 1);
        sampleThreads(KEPT, 30, SoakCheckerTest::swing);
        servers(30, m -> 6);
        SoakResults.Backend fresh = check(30);
        // as a run judged by the medians recorded it, with a failure of the nemesis checker beside it
        SoakResults.Backend recorded = withFailures(
                fresh,
                List.of(
                        "test: threads grew from 31.0 to 41.0 threads (c1) (more than the limit 34.1)",
                        "test: 1 lost update"));

        SoakResults.Backend again = SoakChecker.rejudged(recorded);

        assertThat(again.failures()).containsExactly("test: 1 lost update");
        assertThat(again.growth()).isEqualTo(fresh.growth());
        assertThat(SoakChecker.rejudged(fresh)).isEqualTo(fresh);
    }

    @Test
    void rejudged_recordedRunThatGrew_failsAgain() {
        cleanRounds(21, 1);
        sampleThreads(KEPT, 21, m -> 20 + m);
        servers(21, m -> 6);
        SoakResults.Backend fresh = check(21);

        SoakResults.Backend again = SoakChecker.rejudged(withFailures(fresh, List.of()));

        assertThat(again.failures())
                .isEqualTo(fresh.failures())
                .singleElement()
                .asString()
                .contains("threads grew");
    }

    private static SoakResults.Backend withFailures(SoakResults.Backend b, List<String> failures) {
        return new SoakResults.Backend(
                b.backend(),
                b.topology(),
                b.fencing(),
                b.fencingDeclared(),
                b.durationSeconds(),
                b.clientJvms(),
                b.threadsPerJvm(),
                b.keptJvms(),
                b.leaseMs(),
                b.acquisitions(),
                b.timeouts(),
                b.writesAccepted(),
                b.staleRejected(),
                b.lostUpdates(),
                b.outOfOrder(),
                b.overlaps(),
                b.faultsInjected(),
                b.faultKinds(),
                b.forcedGcs(),
                b.fullGcs(),
                b.windowMinutes(),
                b.connectionsMetric(),
                b.growth(),
                b.minutes(),
                b.clientSamples(),
                failures);
    }

    @Test
    void check_connectionsGrow_failsAndMinutesWithoutAnswerAreLeftOut() {
        cleanRounds(6, 1);
        sample(KEPT, 6, m -> 10, 20);
        servers(6, m -> m == 0 ? -1 : 6 + 4L * m);

        SoakResults.Backend r = check(6);

        assertThat(r.windowMinutes()).isEqualTo(2);
        assertThat(r.growth().get(2)).satisfies(g -> {
            assertThat(g.first()).as("minute 0 did not answer: minute 1 alone").isEqualTo(10.0);
            assertThat(g.last()).isEqualTo(24.0);
        });
        assertThat(r.failures()).singleElement().asString().contains("connections grew");
        assertThat(r.minutes().get(0).connections()).isEqualTo(-1);
    }

    @Test
    void check_aClientThatIsNotKeptGrows_isNotJudged() {
        cleanRounds(3, 2);
        sample(KEPT, 3, m -> 10, 20);
        sample(List.of("c3"), 3, m -> 10 + 50L * m, 90);
        servers(3, m -> 6);

        assertThat(check(3).failures()).isEmpty();
    }

    @Test
    void check_keptClientWithoutSamplesInTheLastWindow_fails() {
        cleanRounds(3, 2);
        sample(List.of("c1"), 3, m -> 10, 20);
        sample(List.of("c2"), 2, m -> 10, 20);
        servers(3, m -> 6);

        assertThat(check(3).failures()).anyMatch(f -> f.contains("no heap samples"));
    }

    @Test
    void check_lostUpdateAndOldToken_countedInTheirMinuteAndFail() {
        cleanRounds(3, 2);
        // minute 2 (index 1): a write that read a stale balance, with an older token, committed last
        round("c2", 99, 4, 1600, 1, writes.size() - 1);
        sample(KEPT, 3, m -> 10, 20);
        servers(3, m -> 6);

        SoakResults.Backend r = check(3);

        assertThat(r.minutes()).extracting(SoakResults.Minute::lostUpdates).containsExactly(0, 1, 0);
        assertThat(r.minutes()).extracting(SoakResults.Minute::outOfOrder).containsExactly(0, 1, 0);
        assertThat(r.lostUpdates()).isEqualTo(1);
        assertThat(r.failures())
                .anyMatch(f -> f.contains("lost update"))
                .anyMatch(f -> f.contains("out of token order"));
    }

    @Test
    void check_noCompleteMinute_fails() {
        cleanRounds(1, 1);

        assertThat(check(0).failures()).anyMatch(f -> f.contains("no complete minute"));
    }

    @Test
    void p99Ms_nearestRank() {
        List<Long> waits = new ArrayList<>();
        for (long i = 1; i <= 200; i++) {
            waits.add(i * MS);
        }

        assertThat(SoakChecker.p99Ms(waits)).isEqualTo(198.0);
        assertThat(SoakChecker.p99Ms(List.of(7 * MS))).isEqualTo(7.0);
        assertThat(SoakChecker.p99Ms(List.of())).isEqualTo(-1.0);
    }
}
