package io.distlock.nemesis;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A soak sample of the JVM it runs in: the heap in use right after the last full GC (the live heap:
 * what a leak makes grow) and the live threads. A full GC is an old-generation collection (the JVM's
 * last {@link GarbageCollectorMXBean}: {@code MarkSweepCompact} under the clients' {@code
 * -XX:+UseSerialGC}); when none ran since the previous sample, {@link #sample()} forces one with {@code
 * System.gc()} and says so, so every sample reads a fresh figure.
 */
final class JvmSample {
    private final GarbageCollectorMXBean full;
    private final Set<String> heapPools;
    private long fullCollections;

    JvmSample() {
        List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
        this.full = collectors.get(collectors.size() - 1);
        this.heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP)
                .map(MemoryPoolMXBean::getName)
                .collect(Collectors.toUnmodifiableSet());
        this.fullCollections = full.getCollectionCount();
    }

    /**
     * {@code <nanoTime> <heap bytes after the last full GC> <live threads> <full GCs since the last
     * sample, not counting a forced one> <1 if this sample forced a full GC, else 0>}.
     */
    synchronized String sample() {
        long count = full.getCollectionCount();
        long natural = count - fullCollections;
        boolean forced = natural == 0;
        if (forced) {
            System.gc(); // a full, stop-the-world collection under the serial collector
        }
        fullCollections = full.getCollectionCount();
        long heap = heapAfterLastFullGc();
        int threads = ManagementFactory.getThreadMXBean().getThreadCount();
        return System.nanoTime() + " " + heap + " " + threads + " " + natural + " " + (forced ? 1 : 0);
    }

    private long heapAfterLastFullGc() {
        if (full instanceof com.sun.management.GarbageCollectorMXBean g && g.getLastGcInfo() != null) {
            long used = 0;
            for (Map.Entry<String, MemoryUsage> e :
                    g.getLastGcInfo().getMemoryUsageAfterGc().entrySet()) {
                if (heapPools.contains(e.getKey())) {
                    used += e.getValue().getUsed();
                }
            }
            return used;
        }
        // without the HotSpot extension: each heap pool's usage after its last collection
        long used = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP && p.getCollectionUsage() != null) {
                used += p.getCollectionUsage().getUsed();
            }
        }
        return used;
    }
}
