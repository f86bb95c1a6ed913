package io.distlock.integration.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.distlock.integration.leader.CandidateJvm.Event;
import io.distlock.testing.servers.SharedBackends;
import io.distlock.testing.servers.SharedBackends.Backend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Leader election with Spring Integration's {@code LockRegistryLeaderInitiator} over {@code
 * DistlockLockRegistry}, three candidates in three JVMs on one backend ({@link LeaderCandidateMain}):
 * one leader; the leader killed (SIGKILL) is replaced within its lease; the next leader paused
 * (SIGSTOP, a long GC pause) is replaced within its lease and, resumed, learns that its lease is lost
 * and steps down without being elected again. At every election no other live, running candidate is
 * leader, and the leadership's fencing token (read by the leader from {@code registry.lease(role)})
 * increases from leader to leader.
 */
abstract class LeaderElectionSuite {
    /** The lease time of every candidate's provider. */
    static final Duration LEASE = Duration.ofSeconds(2);
    /** The initiator's heartbeat: how often the leader re-checks its lock. */
    static final long HEART_BEAT_MILLIS = 200;
    /** Time allowed beyond the lease for a waiting candidate to be elected (wake-up, scheduling on a busy machine). */
    static final Duration SLACK = Duration.ofSeconds(3);

    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final List<CandidateJvm> candidates = new ArrayList<>();
    private final Set<CandidateJvm> leaders = new HashSet<>();
    private final Set<CandidateJvm> ready = new HashSet<>();
    private final Set<CandidateJvm> killed = new HashSet<>();
    private final Set<CandidateJvm> lost = new HashSet<>();
    private long lastToken = Long.MIN_VALUE;
    private final long startedAt = System.nanoTime();

    abstract Backend backend();

    /** The providers' URI parameters. */
    String query() {
        return "leaseTime=" + LEASE.toMillis() + "ms";
    }

    @AfterEach
    void stopCandidates() {
        candidates.forEach(CandidateJvm::close);
    }

    @Test
    void threeCandidates_oneLeaderAtATime_killedAndPausedLeadersReplacedWithinTheirLease() {
        String role = "leader-" + UUID.randomUUID();
        String uri = SharedBackends.uri(backend(), query());
        for (String name : List.of("a", "b", "c")) {
            candidates.add(CandidateJvm.start(name, uri, role, HEART_BEAT_MILLIS, events));
        }
        awaitEvent(e -> ready.size() == candidates.size(), Duration.ofSeconds(60), "all candidates ready");

        CandidateJvm first = leaders.isEmpty()
                ? awaitElection(Duration.ofSeconds(15))
                : leaders.iterator().next();
        expectNoElection(Duration.ofMillis(1500));

        long killedAt = System.nanoTime();
        first.kill();
        report("killed " + first, killedAt);
        killed.add(first);
        CandidateJvm second = awaitElection(LEASE.plus(SLACK));
        report("killed leader replaced", killedAt);

        long pausedAt = System.nanoTime();
        second.pause();
        report("paused " + second, pausedAt);
        CandidateJvm third = awaitElection(LEASE.plus(SLACK));
        report("paused leader replaced", pausedAt);
        assertThat(third).isNotIn(first, second);

        long resumedAt = System.nanoTime();
        second.resume();
        report("resumed " + second, resumedAt);
        // its lease is reported lost at once; the initiator revokes at its next heartbeat
        awaitEvent(e -> lost.contains(second) && !leaders.contains(second), LEASE.plus(SLACK), second + " steps down");
        report("resumed leader stepped down", resumedAt);
        expectNoElection(Duration.ofMillis(1500));
        assertThat(leaders).containsExactly(third);
    }

    private void report(String what, long since) {
        System.out.printf(
                "%6d ms  %s on %s after %d ms%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedAt),
                what,
                backend().label(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since));
    }

    /** Waits for the next election and returns the new leader. */
    private CandidateJvm awaitElection(Duration within) {
        return awaitEvent(e -> e.kind().equals("GRANTED"), within, "a leader elected")
                .candidate();
    }

    private void expectNoElection(Duration during) {
        long end = System.nanoTime() + during.toNanos();
        Event e;
        while ((e = next(end)) != null) {
            if (e.kind().equals("GRANTED")) {
                fail(e.candidate() + " was elected while " + leaders + " led");
            }
        }
    }

    private Event awaitEvent(Predicate<Event> until, Duration within, String what) {
        long end = System.nanoTime() + within.toNanos();
        Event e;
        while ((e = next(end)) != null) {
            if (until.test(e)) {
                return e;
            }
        }
        return fail("no " + what + " within " + within + " on " + backend().label() + "; leaders " + leaders + logs());
    }

    /** The next event (checked and applied), or null at {@code end}. */
    private Event next(long end) {
        Event e;
        try {
            e = events.poll(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", ie);
        }
        if (e != null) {
            apply(e);
        }
        return e;
    }

    private void apply(Event e) {
        CandidateJvm c = e.candidate();
        System.out.printf(
                "%6d ms  %s %s%s%n",
                TimeUnit.NANOSECONDS.toMillis(e.atNanos() - startedAt),
                c,
                e.kind(),
                e.token().isPresent() ? " " + e.token().getAsLong() : "");
        switch (e.kind()) {
            case "READY":
                ready.add(c);
                break;
            case "GRANTED":
                for (CandidateJvm other : leaders) {
                    if (other != c && !killed.contains(other) && !other.paused()) {
                        fail(c + " was elected while " + other + " (running) led" + logs());
                    }
                }
                leaders.removeIf(l -> killed.contains(l) || l.paused());
                leaders.add(c);
                if (e.token().isPresent()) {
                    assertThat(e.token().getAsLong())
                            .as("fencing token of %s's leadership", c)
                            .isGreaterThan(lastToken);
                    lastToken = e.token().getAsLong();
                }
                break;
            case "REVOKED":
                leaders.remove(c);
                break;
            case "EXITED":
                if (!killed.contains(c)) {
                    fail("candidate " + c + " exited" + logs());
                }
                break;
            case "LOST":
                lost.add(c);
                break;
            default:
        }
    }

    private String logs() {
        StringBuilder sb = new StringBuilder();
        for (CandidateJvm c : candidates) {
            sb.append("\n--- candidate ").append(c).append(" log:\n").append(c.log());
        }
        return sb.toString();
    }
}
