package io.distlock.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The checker on hand-made histories: it must catch each kind of broken run, and pass a clean one. */
class CheckerTest {
    private static final long MS = 1_000_000L;

    private final List<Event> events = new ArrayList<>();
    private final List<Resource.Write> writes = new ArrayList<>();

    /** A holding by {@code client}/{@code hold} from {@code fromMs} to {@code toMs}, lease 1 s. */
    private void holding(String client, long hold, long token, long fromMs, long toMs, boolean written) {
        events.add(new Event(client, "ACQUIRED", fromMs * MS, hold, token, (fromMs + 1000) * MS, ""));
        if (written) {
            events.add(new Event(client, "WRITE_OK", (toMs - 1) * MS, hold, token, Event.NONE, ""));
            writes.add(new Resource.Write(writes.size() + 1, token, client, hold, writes.size()));
        }
        events.add(new Event(client, "RELEASED", toMs * MS, hold, token, Event.NONE, ""));
    }

    private Results.Backend check(boolean fencing, boolean mayGrantTwice, long balance) {
        List<Results.Window> windows = List.of(
                new Results.Window("baseline", "no fault", "none", 0, 0, "", false),
                new Results.Window("pause-holder", "pause", "pause", 500 * MS, 800 * MS, "", false),
                new Results.Window("restart-server-lose-data", "lose", "server", 3000 * MS, 3100 * MS, "", true));
        return Checker.check(new Checker.Input(
                "test",
                "hand-made",
                fencing ? "MONOTONIC_PER_LOCK" : "NONE",
                mayGrantTwice ? "MAY_GRANT_TWICE" : "HELD_LOCKS_SURVIVE",
                fencing,
                mayGrantTwice,
                2,
                1000,
                0,
                5000 * MS,
                "ok: test",
                events,
                windows,
                writes,
                balance));
    }

    @Test
    void check_cleanHistory_passesAndCountsPerPhase() {
        holding("c1", 1, 10, 100, 200, true);
        holding("c2", 1, 11, 300, 400, true);
        holding("c1", 2, 12, 850, 900, true);

        Results.Backend r = check(true, false, 3);

        assertThat(r.failures()).isEmpty();
        assertThat(r.phases()).extracting(Results.Phase::writesAccepted).containsExactly(2, 1, 0);
        assertThat(r.phases()).extracting(Results.Phase::acquisitions).containsExactly(2, 1, 0);
        assertThat(r.total(Results.Phase::overlaps)).isZero();
        assertThat(r.phases().get(1).recoveryMs()).isEqualTo(99); // undone at 800 ms, next write at 899 ms
    }

    @Test
    void recovery_frozenHoldersLateWriteAfterTheFault_doesNotCount() {
        holding("c1", 1, 10, 100, 200, true);
        // acquired before the fault (500 ms), frozen across it, writes late at 850 ms, after the undo
        holding("c1", 2, 11, 400, 851, true);
        // the first holder granted after the fault began writes at 949 ms
        holding("c2", 1, 12, 900, 950, true);

        Results.Backend r = check(true, false, 3);

        assertThat(r.phases().get(1).recoveryMs()).isEqualTo(149); // undone at 800 ms
    }

    @Test
    void recovery_onlyTheFrozenHolderWritesAfterTheFault_notRecoveredWithinTheRun() {
        holding("c1", 1, 10, 100, 200, true);
        // acquired before the data-losing fault at 3000 ms, accepted late at 3199 ms
        holding("c1", 2, 11, 2900, 3200, true);
        // every later holder is rejected (a token counter started again below the resource's)
        events.add(new Event("c2", "ACQUIRED", 3300 * MS, 1, 1, 4300 * MS, ""));
        events.add(new Event("c2", "WRITE_STALE", 3350 * MS, 1, 1, Event.NONE, ""));
        events.add(new Event("c2", "RELEASED", 3360 * MS, 1, 1, Event.NONE, ""));

        Results.Backend r = check(true, false, 2);
        Results.Run run = new Results.Run("long", "now", "2 cores", 1, List.of(r), "cmd");

        Results.Phase lose = r.phases().get(2);
        assertThat(lose.recoveryMs()).isEqualTo(-1);
        assertThat(ReportWriter.verdict(r, lose)).contains("not recovered within the run");
        assertThat(ReadmeSection.render(run, "r.md"))
                .contains(
                        "**not recovered within the run after 1 of 1 runs** (lose)](r.md#test-restart-server-lose-data)")
                .contains("granted the lock after the fault began");
        assertThat(ReportWriter.matrix(run, "r.md", "cmd")).contains("not recovered within the run after 1 of 1");
    }

    @Test
    void resultsJson_recordedBeforeTheRecoveryDefinition_renderedWithTheOldDefinition(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        holding("c1", 1, 10, 100, 200, true);
        holding("c1", 2, 11, 2900, 3200, true);
        Results.Run run = new Results.Run("long", "now", "2 cores", 1, List.of(check(true, false, 2)), "cmd");
        String json = ReportWriter.json(run);
        assertThat(json).contains("\"recovery\": ");
        // results.json as written before the key existed
        java.nio.file.Files.writeString(
                dir.resolve("results.json"), json.replaceAll("\n *\"recovery\": \"[^\"]*\",", ""));

        Results.Run old = ResultsJson.read(dir.resolve("results.json"));

        assertThat(old.backends().get(0).recoveryByNewHolder()).isFalse();
        assertThat(ReadmeSection.render(old, "r.md"))
                .contains("next accepted write, by any client (these results were recorded before");
        assertThat(ReadmeSection.render(run, "r.md")).doesNotContain("recorded before");
    }

    @Test
    void check_writeAcceptedOutOfTokenOrder_failsWhenFencingDeclared() {
        holding("c1", 1, 20, 100, 200, true);
        holding("c2", 1, 19, 300, 400, true);

        Results.Backend r = check(true, true, 2);

        assertThat(r.failures()).singleElement().asString().contains("1 write(s) out of token order");
        assertThat(r.examples()).anyMatch(e -> e.contains("accepted out of token order"));
    }

    @Test
    void check_writeAcceptedOutOfTokenOrder_reportedButNotFailedWithoutFencing() {
        holding("c1", 1, 20, 100, 200, true);
        holding("c2", 1, 19, 300, 400, true);

        Results.Backend r = check(false, true, 2);

        assertThat(r.failures()).isEmpty();
        assertThat(r.total(Results.Phase::outOfOrder)).isEqualTo(1);
    }

    @Test
    void check_tokenReusedAfterARestartWithoutData_admittedAsFencingBroken() {
        holding("c1", 1, 7, 100, 200, true);
        holding("c2", 1, 7, 3200, 3300, true); // after the data-losing fault at 3000 ms

        Results.Backend r = check(true, true, 2);

        assertThat(r.failures()).isEmpty();
        Results.Phase lose = r.phases().get(2);
        assertThat(lose.duplicateTokens()).isEqualTo(1);
        assertThat(lose.fencingViolationAdmitted()).isTrue();
        assertThat(ReportWriter.verdict(r, lose)).contains("fencing broken").contains("admitted");
    }

    @Test
    void check_tokenReusedByAnotherHolder_fails() {
        holding("c1", 1, 7, 100, 200, true);
        holding("c2", 1, 7, 300, 400, true);

        Results.Backend r = check(true, true, 2);

        assertThat(r.failures()).singleElement().asString().contains("1 with a reused token");
    }

    @Test
    void check_twoWritesReadTheSameBalance_lostUpdateFails() {
        holding("c1", 1, 1, 100, 200, true);
        holding("c2", 1, 2, 300, 400, true);
        writes.set(1, new Resource.Write(2, 2, "c2", 1, 0)); // read 0 although one write was accepted

        Results.Backend r = check(true, false, 1);

        assertThat(r.lostUpdates()).isEqualTo(1);
        assertThat(r.balanceChainBreaks()).isEqualTo(1);
        assertThat(r.failures()).singleElement().asString().contains("1 lost update(s)");
    }

    @Test
    void check_acknowledgedWriteMissingFromTheLog_isALostUpdate() {
        holding("c1", 1, 1, 100, 200, true);
        writes.clear();
        holding("c2", 1, 2, 300, 400, true);
        writes.set(0, new Resource.Write(1, 2, "c2", 1, 0));

        Results.Backend r = check(true, false, 1);

        assertThat(r.acknowledgedButMissing()).isEqualTo(1);
        assertThat(r.failures()).anyMatch(f -> f.contains("lost update"));
    }

    @Test
    void check_overlappingBeliefs_reportedInTheirPhaseWithoutFailing() {
        holding("c1", 1, 1, 100, 200, true);
        // c2 acquires at 550 ms while c1's second holding (from 520 ms, lease 1 s) was never released
        events.add(new Event("c1", "ACQUIRED", 520 * MS, 2, 2, 1520 * MS, ""));
        holding("c2", 1, 3, 550, 650, true);
        events.add(new Event("c1", "WRITE_STALE", 1600 * MS, 2, 2, Event.NONE, "3"));

        Results.Backend r = check(true, true, 2);

        assertThat(r.failures()).isEmpty();
        Results.Phase pause = r.phases().get(1);
        assertThat(pause.overlaps()).isEqualTo(1);
        assertThat(pause.staleRejected()).isEqualTo(1);
        assertThat(pause.lateWrites()).isEqualTo(1);
        assertThat(pause.lateWritesAccepted()).isZero();
        assertThat(ReportWriter.verdict(r, pause)).contains("double grant").contains("admitted");
    }

    @Test
    void check_holderKilled_beliefEndsAtTheKillAndTheKillIsCounted() {
        holding("c1", 1, 1, 100, 200, true);
        // c1 acquires at 520 ms believing in its lease until 1520 ms, and is SIGKILLed at 530 ms
        events.add(new Event("c1", "ACQUIRED", 520 * MS, 2, 2, 1520 * MS, ""));
        events.add(new Event("c1", "KILLED", 530 * MS, 2, -1, Event.NONE, "SIGKILL"));
        holding("c2", 1, 3, 550, 650, true);

        Results.Backend r = check(true, false, 2);

        assertThat(r.failures()).isEmpty();
        Results.Phase pause = r.phases().get(1);
        assertThat(pause.kills()).isEqualTo(1);
        assertThat(pause.overlaps()).as("a dead holder believes nothing").isZero();
        assertThat(r.total(Results.Phase::kills)).isEqualTo(1);
        assertThat(ReportWriter.results(new Results.Run("smoke", "now", "2 cores", 1, List.of(r), "cmd"), "cmd"))
                .contains("1 holder(s) killed");
    }

    @Test
    void check_holderKilledAfterTheNextGrant_stillAnOverlap() {
        holding("c1", 1, 1, 100, 200, true);
        events.add(new Event("c1", "ACQUIRED", 520 * MS, 2, 2, 1520 * MS, ""));
        holding("c2", 1, 3, 550, 650, true);
        events.add(new Event("c1", "KILLED", 700 * MS, 2, -1, Event.NONE, "SIGKILL"));

        Results.Backend r = check(true, false, 2);

        assertThat(r.phases().get(1).overlaps()).isEqualTo(1);
        assertThat(r.phases().get(1).kills()).isEqualTo(1);
    }

    @Test
    void check_noWriteAccepted_failsAsVacuous() {
        events.add(new Event("c1", "ACQUIRE_ERROR", 100 * MS, 1, -1, Event.NONE, "down"));

        Results.Backend r = check(true, false, 0);

        assertThat(r.failures()).anyMatch(f -> f.contains("proves nothing"));
    }

    @Test
    void check_clockDisagreement_fails() {
        holding("c1", 1, 1, 100, 200, true);
        Results.Backend ok = check(true, false, 1);
        Results.Backend bad = Checker.check(new Checker.Input(
                "test",
                "t",
                "NONE",
                "NOT_APPLICABLE",
                false,
                false,
                1,
                1000,
                0,
                5000 * MS,
                "client c1 read 5 between the parent's 7 and 9",
                events,
                List.of(new Results.Window("baseline", "no fault", "none", 0, 0, "", false)),
                writes,
                1));

        assertThat(ok.failures()).isEmpty();
        assertThat(bad.failures()).anyMatch(f -> f.contains("not one monotonic clock"));
    }

    @Test
    void matrix_repeatedFault_linksToTheWorstRunsOwnAnchor() {
        holding("c1", 1, 1, 100, 200, true);
        holding("c2", 1, 2, 850, 900, true);
        Results.Backend one = check(true, true, 2);
        Results.Phase calm = one.phases().get(1);
        Results.Phase bad = new Results.Phase(
                calm.fault(), calm.description(), calm.column(), "", 1, 1, 0, 0, 0, 0, 0, 2, 10.0, 0, 0, 5, 100, 0);
        Results.Backend b = new Results.Backend(
                one.backend(),
                one.topology(),
                one.fencing(),
                one.failover(),
                true,
                true,
                2,
                1000,
                1,
                "ok",
                List.of(one.phases().get(0), calm, bad),
                1,
                1,
                1,
                0,
                0,
                0,
                List.of(),
                List.of(),
                true);
        Results.Run run = new Results.Run("long", "now", "2 cores", 1, List.of(b), "cmd");

        assertThat(ReportWriter.anchors(b))
                .containsExactly("test-baseline", "test-pause-holder", "test-pause-holder-2");
        assertThat(ReportWriter.matrix(run, "r.md", "cmd"))
                .contains("**granted twice** (declared)](r.md#test-pause-holder-2) (worst of 2 runs)");
        assertThat(ReportWriter.results(run, "cmd")).contains("<a id=\"test-pause-holder-2\"></a>");
    }

    @Test
    void resultsJson_readBack_regeneratesTheSameReports(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        holding("c1", 1, 20, 100, 200, true);
        holding("c2", 1, 19, 300, 400, true);
        events.add(new Event("c1", "WRITE_STALE", 900 * MS, 1, 20, Event.NONE, "a \"quoted\" detail"));
        Results.Run run = new Results.Run("long", "now", "2 cores", 1, List.of(check(true, true, 2)), "cmd");
        java.nio.file.Files.writeString(dir.resolve("results.json"), ReportWriter.json(run));

        Results.Run back = ResultsJson.read(dir.resolve("results.json"));

        assertThat(ReportWriter.matrix(back, "r.md", "cmd")).isEqualTo(ReportWriter.matrix(run, "r.md", "cmd"));
        assertThat(ReportWriter.results(back, "cmd")).isEqualTo(ReportWriter.results(run, "cmd"));
        assertThat(back.backends().get(0).failures())
                .isEqualTo(run.backends().get(0).failures());
    }

    /** {@code b} under another backend name. */
    private static Results.Backend named(Results.Backend b, String name) {
        return new Results.Backend(
                name,
                b.topology(),
                b.fencing(),
                b.failover(),
                b.fencingDeclared(),
                b.mayGrantTwice(),
                b.clients(),
                b.leaseMs(),
                b.durationSeconds(),
                b.clockCheck(),
                b.phases(),
                b.finalBalance(),
                b.writesInLog(),
                b.writesAcknowledged(),
                b.lostUpdates(),
                b.acknowledgedButMissing(),
                b.balanceChainBreaks(),
                b.examples(),
                b.failures(),
                b.recoveryByNewHolder());
    }

    @Test
    void merge_freshBackendReplacesItsRowAndJoinsTheOthers_whichKeepTheirRunAcrossTheJson(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        holding("c1", 1, 1, 100, 200, true);
        Results.Backend b = check(true, false, 1);
        Results.Run recorded = new Results.Run(
                "long",
                "2026-01-01T00:00:00Z",
                "2 cores",
                100,
                List.of(named(b, "alpha"), named(b, "beta")),
                "./distlock nemesis --profile long");
        Results.Run fresh = new Results.Run(
                "long",
                "2026-02-02T00:00:00Z",
                "2 cores",
                50,
                List.of(named(b, "beta"), named(b, "gamma")),
                "./distlock nemesis --profile long --backends beta,gamma");

        Results.Run merged = Results.merge(recorded, fresh);

        assertThat(merged.backends()).extracting(Results.Backend::backend).containsExactly("alpha", "beta", "gamma");
        assertThat(merged.backends().get(1)).isSameAs(fresh.backends().get(0));
        assertThat(merged.started()).isEqualTo("2026-02-02T00:00:00Z");
        assertThat(merged.earlier()).containsOnlyKeys("alpha");
        assertThat(merged.earlier().get("alpha").started()).isEqualTo("2026-01-01T00:00:00Z");
        String table = ReadmeSection.render(merged, "r.md");
        assertThat(table)
                .contains("generated from the nemesis run of 2026-02-02T00:00:00Z")
                .contains("The rows of alpha come from the run of 2026-01-01T00:00:00Z (profile `long`, 100.0 s on 2"
                        + " cores, `./distlock nemesis --profile long`).");
        // a run that measured every row says nothing of earlier runs
        assertThat(ReadmeSection.render(recorded, "r.md")).doesNotContain("come from the run of");

        java.nio.file.Files.writeString(dir.resolve("results.json"), ReportWriter.json(merged));
        Results.Run back = ResultsJson.read(dir.resolve("results.json"));
        assertThat(back.earlier()).isEqualTo(merged.earlier());
        assertThat(ReadmeSection.render(back, "r.md")).isEqualTo(table);
        // merged again later: alpha keeps the run that measured it, beta now names the February run
        Results.Run later = Results.merge(
                back,
                new Results.Run("long", "2026-03-03T00:00:00Z", "2 cores", 10, List.of(named(b, "gamma")), "cmd3"));
        assertThat(later.earlier().get("alpha").started()).isEqualTo("2026-01-01T00:00:00Z");
        assertThat(later.earlier().get("beta").started()).isEqualTo("2026-02-02T00:00:00Z");
    }

    @Test
    void matrix_linksEveryCellToItsFaultRun() {
        holding("c1", 1, 1, 100, 200, true);
        Results.Backend r = check(true, false, 1);
        Results.Run run = new Results.Run("smoke", "now", "2 cores", 1, List.of(r), "cmd");

        String matrix = ReportWriter.matrix(run, "nemesis-results.md", "./distlock nemesis");
        String results = ReportWriter.results(run, "./distlock nemesis");

        assertThat(matrix).contains("(nemesis-results.md#test-pause-holder)").contains("(nemesis-results.md#test)");
        assertThat(results).contains("<a id=\"test-pause-holder\"></a>").contains("<a id=\"test\"></a>");
        assertThat(ReportWriter.json(run)).contains("\"fault\": \"pause-holder\"");
    }
}
