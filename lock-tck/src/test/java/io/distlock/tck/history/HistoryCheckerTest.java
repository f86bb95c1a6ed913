package io.distlock.tck.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.tck.history.HistoryEvent.Type;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class HistoryCheckerTest {
    private static final long MS = 1_000_000;

    private final List<HistoryEvent> events = new ArrayList<>();

    private void acquired(String client, String hold, String lock, long token, long atMs, long deadlineMs) {
        events.add(new HistoryEvent(
                Type.ACQUIRED,
                atMs * MS,
                client,
                hold,
                lock,
                OptionalLong.of(token),
                OptionalLong.of(deadlineMs * MS)));
    }

    private void event(Type type, String client, String hold, String lock, long token, long atMs) {
        events.add(new HistoryEvent(type, atMs * MS, client, hold, lock, OptionalLong.of(token), OptionalLong.empty()));
    }

    private void valid(String client, String hold, String lock, long token, long atMs, long deadlineMs) {
        events.add(new HistoryEvent(
                Type.VALID, atMs * MS, client, hold, lock, OptionalLong.of(token), OptionalLong.of(deadlineMs * MS)));
    }

    @Test
    void check_sequentialHoldersWithIncreasingTokens_ok() {
        acquired("a", "a#1", "x", 1, 0, 100);
        event(Type.RELEASED, "a", "a#1", "x", 1, 10);
        acquired("b", "b#1", "x", 2, 11, 111);
        event(Type.RELEASED, "b", "b#1", "x", 2, 20);
        acquired("a", "a#2", "y", 1, 5, 105); // another lock, overlapping in time: fine

        HistoryChecker.Result r = HistoryChecker.perLock().check(events);

        assertThat(r.ok()).as(r.describe()).isTrue();
        assertThat(r.intervals()).hasSize(3);
        r.assertOk();
    }

    @Test
    void check_overlappingValidHolders_reportsOverlap() {
        acquired("a", "a#1", "x", 1, 0, 100);
        event(Type.RELEASED, "a", "a#1", "x", 1, 50);
        acquired("b", "b#1", "x", 2, 40, 140);

        HistoryChecker.Result r = HistoryChecker.perLock().check(events);

        assertThat(r.ok()).isFalse();
        assertThat(r.violations()).singleElement().asString().contains("overlap", "a#1", "b#1", "'x'");
        assertThatThrownBy(r::assertOk).isInstanceOf(AssertionError.class).hasMessageContaining("1 violation");
    }

    @Test
    void check_holderPastItsDeadline_isNoLongerValid() {
        // a's lease ran out at 30 ms; it released (late) at 80 ms; b acquired at 40 ms: no overlap
        acquired("a", "a#1", "x", 1, 0, 30);
        event(Type.RELEASED, "a", "a#1", "x", 1, 80);
        acquired("b", "b#1", "x", 2, 40, 140);

        assertThat(HistoryChecker.perLock().check(events).ok()).isTrue();
    }

    @Test
    void check_renewalCheckpointExtendsTheInterval() {
        acquired("a", "a#1", "x", 1, 0, 30);
        valid("a", "a#1", "x", 1, 20, 60);
        acquired("b", "b#1", "x", 2, 40, 140);

        HistoryChecker.Result r = HistoryChecker.perLock().check(events);

        assertThat(r.ok()).isFalse();
        assertThat(r.violations().get(0)).contains("overlap");
    }

    @Test
    void check_lossEndsTheInterval() {
        acquired("a", "a#1", "x", 1, 0, 100);
        event(Type.LOST, "a", "a#1", "x", 1, 35);
        acquired("b", "b#1", "x", 2, 40, 140);

        assertThat(HistoryChecker.perLock().check(events).ok()).isTrue();
    }

    @Test
    void check_killedHolder_beliefEndsAtTheKill() {
        // a believed it held x until 1000 ms, but it was killed at 30 ms: b's acquisition at 40 ms is no overlap
        acquired("a", "a#1", "x", 1, 0, 1000);
        event(Type.KILLED, "a", "a#1", "x", 1, 30);
        acquired("b", "b#1", "x", 2, 40, 140);

        HistoryChecker.Result r = HistoryChecker.perLock().check(events);

        assertThat(r.ok()).as(r.describe()).isTrue();
        assertThat(r.kills()).isEqualTo(1);
        assertThat(r.intervals())
                .filteredOn(i -> i.hold().equals("a#1"))
                .singleElement()
                .satisfies(i -> {
                    assertThat(i.end()).isEqualTo(30 * MS);
                    assertThat(i.killed()).isTrue();
                });
        assertThat(r.describe()).contains("1 ended by a kill");
    }

    @Test
    void check_killAfterTheNextAcquisition_stillReportsTheOverlap() {
        acquired("a", "a#1", "x", 1, 0, 1000);
        acquired("b", "b#1", "x", 2, 40, 140);
        event(Type.KILLED, "a", "a#1", "x", 1, 60);

        HistoryChecker.Result r = HistoryChecker.perLock().check(events);

        assertThat(r.ok()).isFalse();
        assertThat(r.violations()).singleElement().asString().contains("overlap", "a#1", "b#1");
        assertThat(r.kills()).isEqualTo(1);
    }

    @Test
    void check_killAfterTheHoldingEnded_isNotCountedAsAKill() {
        acquired("a", "a#1", "x", 1, 0, 1000);
        event(Type.RELEASED, "a", "a#1", "x", 1, 10);
        event(Type.KILLED, "a", "a#1", "x", 1, 50);

        HistoryChecker.Result r = HistoryChecker.perLock().check(events);

        assertThat(r.kills()).isZero();
        assertThat(r.intervals())
                .singleElement()
                .satisfies(i -> assertThat(i.end()).isEqualTo(10 * MS));
    }

    @Test
    void check_crashedHolderWithoutDeadline_isOpenToTheEnd() {
        events.add(new HistoryEvent(Type.ACQUIRED, 0, "a", "a#1", "x", OptionalLong.of(1), OptionalLong.empty()));
        acquired("b", "b#1", "x", 2, 400, 500);

        HistoryChecker.Result r = HistoryChecker.perLock().check(events);

        assertThat(r.ok()).isFalse();
        assertThat(r.violations().get(0)).contains("end of history");
    }

    @Test
    void check_tokenRepeatsOnOneLock_reportsTokenOrder() {
        acquired("a", "a#1", "x", 5, 0, 100);
        event(Type.RELEASED, "a", "a#1", "x", 5, 10);
        acquired("b", "b#1", "x", 5, 11, 111);

        HistoryChecker.Result r = HistoryChecker.perLock().check(events);

        assertThat(r.ok()).isFalse();
        assertThat(r.violations()).singleElement().asString().contains("token not increasing", "token 5");
    }

    @Test
    void check_tokensGoBackwardsAcrossLocks_onlyGlobalReports() {
        acquired("a", "a#1", "x", 7, 0, 100);
        event(Type.RELEASED, "a", "a#1", "x", 7, 10);
        acquired("b", "b#1", "y", 3, 20, 120);
        event(Type.RELEASED, "b", "b#1", "y", 3, 30);

        assertThat(HistoryChecker.perLock().check(events).ok()).isTrue();
        HistoryChecker.Result global = HistoryChecker.global().check(events);
        assertThat(global.ok()).isFalse();
        assertThat(global.violations()).singleElement().asString().contains("globally", "token 3", "token 7");
    }

    @Test
    void check_concurrentHoldersOfDifferentLocks_globalIgnoresUnorderedPairs() {
        // x and y are held at the same time: their tokens need not be ordered by acquisition return
        acquired("a", "a#1", "x", 9, 0, 100);
        acquired("b", "b#1", "y", 8, 1, 101);

        assertThat(HistoryChecker.global().check(events).ok()).isTrue();
    }

    @Test
    void check_staleWriteAccepted_reportsIt() {
        event(Type.WRITE, "b", "b#1", "x", 2, 10);
        event(Type.WRITE, "a", "a#1", "x", 1, 20);
        acquired("a", "a#1", "x", 1, 0, 5);
        acquired("b", "b#1", "x", 2, 6, 100);

        HistoryChecker.Result r = HistoryChecker.perLock().check(events);

        assertThat(r.ok()).isFalse();
        assertThat(r.violations()).singleElement().asString().contains("stale write", "token 1", "token 2");
    }

    @Test
    void check_eventsWithoutAcquisition_reported() {
        event(Type.RELEASED, "a", "a#9", "x", 1, 10);

        assertThat(HistoryChecker.perLock().check(events).violations())
                .singleElement()
                .asString()
                .contains("no ACQUIRED");
    }

    @Test
    void check_manyViolations_summaryIsCapped() {
        for (int i = 0; i < 30; i++) {
            acquired("c" + i, "c" + i + "#1", "x", 1, i, 1000);
        }

        HistoryChecker.Result r = HistoryChecker.perLock().check(events);

        assertThat(r.totalViolations()).isGreaterThan(20);
        assertThat(r.violations()).hasSize(20);
        assertThat(r.describe()).contains("more");
    }

    @Test
    void line_roundTrip_preservesEveryField() {
        HistoryEvent e = new HistoryEvent(
                Type.ACQUIRED,
                -123456789L,
                "client 1/ü",
                "client 1/ü#7",
                "lock with spaces %2F '; DROP",
                OptionalLong.of(42),
                OptionalLong.empty());

        String line = e.toLine();

        assertThat(line).doesNotContain("\n").startsWith("ACQUIRED -123456789 ");
        assertThat(line.split(" ")).hasSize(7);
        assertThat(HistoryEvent.parse(line)).isEqualTo(e);
    }

    @Test
    void parse_malformedLine_throwsNamingTheLine() {
        assertThatThrownBy(() -> HistoryEvent.parse("ACQUIRED 1 a"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("7 space-separated fields");
        assertThatThrownBy(() -> HistoryEvent.parse("HELD 1 a a x - -"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("HELD 1 a a x - -");
    }

    @Test
    void recorder_writtenAndParsedBack_checksTheSame() {
        HistoryRecorder recorder = new HistoryRecorder();
        acquired("a", "a#1", "x", 1, 0, 100);
        acquired("b", "b#1", "x", 2, 40, 140);
        events.forEach(recorder::add);
        StringWriter out = new StringWriter();

        recorder.writeTo(out);
        List<HistoryEvent> parsed =
                out.toString().lines().map(HistoryEvent::parse).toList();

        assertThat(parsed).isEqualTo(events);
        assertThat(HistoryChecker.perLock().check(parsed).ok()).isFalse();
    }
}
