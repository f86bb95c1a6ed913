package io.distlock.compare;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * What a scenario's clients cost beyond their speed: the connections open to the target's server
 * (when the target can count them) and the live threads of this JVM, read before the clients open
 * and while they work; the difference is what the clients added.
 */
record Footprint(OptionalLong connections, int threads) {

    static Footprint now(ComparisonTarget target) {
        return new Footprint(
                target.connectionsNow(), ManagementFactory.getThreadMXBean().getThreadCount());
    }

    /** {@code connections} and {@code client_threads}: this footprint less {@code before}. */
    Map<String, Double> minus(Footprint before) {
        Map<String, Double> v = new LinkedHashMap<>();
        if (connections.isPresent() && before.connections.isPresent()) {
            v.put("connections", (double) (connections.getAsLong() - before.connections.getAsLong()));
        }
        v.put("client_threads", (double) (threads - before.threads));
        return v;
    }

    /** The heap in use after a full collection, in bytes: what the live objects of this JVM take. */
    static long heapAfterGc() {
        for (int i = 0; i < 2; i++) {
            System.gc(); // two: objects freed by the first one's finalisation and reference processing
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
