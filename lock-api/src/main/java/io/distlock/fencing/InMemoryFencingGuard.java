package io.distlock.fencing;

import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/** A thread-safe {@link FencingGuard} kept in this JVM's memory, for tests and single-process resources. */
public final class InMemoryFencingGuard implements FencingGuard {
    private final Map<String, Long> newest = new ConcurrentHashMap<>();

    @Override
    public void check(String resource, long token) {
        if (resource == null || resource.isEmpty()) {
            throw new IllegalArgumentException("resource must not be null or empty");
        }
        long[] rejectedBy = {Long.MIN_VALUE};
        newest.compute(resource, (k, last) -> {
            if (last != null && token < last) {
                rejectedBy[0] = last;
                return last;
            }
            return token;
        });
        if (rejectedBy[0] != Long.MIN_VALUE) {
            throw new StaleTokenException(resource, token, rejectedBy[0]);
        }
    }

    /** The newest token accepted for {@code resource}. */
    public OptionalLong lastAccepted(String resource) {
        Long v = newest.get(resource);
        return v == null ? OptionalLong.empty() : OptionalLong.of(v);
    }
}
