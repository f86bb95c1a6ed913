package io.distlock.nemesis;

import java.time.Duration;
import java.util.List;

/**
 * Verifies that the parent and every client JVM read one monotonic clock, which the checker relies
 * on when it merges their events: for each exchange the parent reads {@code before}, asks the
 * child for its {@code System.nanoTime()}, reads {@code after}, and requires {@code before <=
 * child <= after}. Two JVMs on one Linux host read the same {@code CLOCK_MONOTONIC}; a run across
 * hosts, or a platform where that is not so, fails this check instead of producing a wrong verdict.
 */
final class ClockCheck {
    private ClockCheck() {}

    /** Returns {@code "ok: ..."} or a description of the first disagreement. */
    static String check(List<ClientProcess> clients, int rounds) throws InterruptedException {
        long worstRtt = 0;
        for (ClientProcess c : clients) {
            for (int i = 0; i < rounds; i++) {
                long before = System.nanoTime();
                long child = c.clock(Duration.ofSeconds(10));
                long after = System.nanoTime();
                if (child < before || child > after) {
                    return "client " + c.id() + " read " + child + " between the parent's " + before + " and " + after;
                }
                worstRtt = Math.max(worstRtt, after - before);
            }
        }
        return "ok: " + clients.size() * rounds + " exchanges, each child reading inside the parent's window"
                + " (widest " + worstRtt / 1000 + " µs)";
    }
}
