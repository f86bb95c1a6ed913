package io.distlock.mysql;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where the claims of one {@link MySqlLockProvider#claimRows(String, String, java.util.Map, int,
 * ClaimCursor, MySqlLockProvider.ClaimWork) claimRows} query left off: the last key of the latest
 * claim (the largest of concurrent claims' last keys when the keys are numbers of one type).
 * Thread-safe; share one among the workers of a claim (same table, key and {@code where}). Holds no
 * connection and no lock.
 *
 * <pre>{@code
 * ClaimCursor cursor = ClaimCursor.usingIndex("status_id"); // the index on (status, id)
 * int n = locks.claimRows("stock", "id", Map.of("status", "FREE"), 50, cursor, (c, ids) -> ids.size());
 * }</pre>
 */
public final class ClaimCursor {
    private final String index;
    private final AtomicReference<Object> after = new AtomicReference<>();

    private ClaimCursor(String index) {
        this.index = index;
    }

    /** A cursor at the start; the server's optimizer picks the index. */
    public static ClaimCursor create() {
        return new ClaimCursor(null);
    }

    /**
     * A cursor at the start whose claims name {@code index} ({@code FORCE INDEX}): an index whose
     * columns are the {@code where} columns followed by the key column. MariaDB 10.11 reads such an
     * index by the {@code where} values alone ({@code ref} access) and ignores the key bound unless
     * told; without the index named the cursor saves little there.
     *
     * @throws IllegalArgumentException if {@code index} does not match {@code [A-Za-z_][A-Za-z0-9_]{0,63}}
     */
    public static ClaimCursor usingIndex(String index) {
        if (index == null || !index.matches("[A-Za-z_][A-Za-z0-9_]{0,63}")) {
            throw new IllegalArgumentException("index must match [A-Za-z_][A-Za-z0-9_]{0,63} (was '" + index + "')");
        }
        return new ClaimCursor(index);
    }

    /** The last key of the latest claim, or empty at the start and after a claim found nothing. */
    public Optional<Object> position() {
        return Optional.ofNullable(after.get());
    }

    /** The index the claims name, or null. */
    String index() {
        return index;
    }

    /**
     * After a claim returned {@code keys} (in key order). From the start of the key range (or
     * nothing found), the cursor is set; otherwise it keeps the larger of its position and the
     * claim's last key where Java orders them as the server does (numbers of one type), so
     * concurrent claims finishing out of order do not move it back.
     */
    void claimed(List<Object> keys, boolean fromStart) {
        Object last = keys.isEmpty() ? null : keys.get(keys.size() - 1);
        if (fromStart || last == null) {
            after.set(last);
        } else {
            after.accumulateAndGet(last, ClaimCursor::later);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object later(Object current, Object candidate) {
        if (current instanceof Number && current instanceof Comparable && current.getClass() == candidate.getClass()) {
            return ((Comparable) current).compareTo(candidate) >= 0 ? current : candidate;
        }
        return candidate;
    }

    @Override
    public String toString() {
        return "ClaimCursor{index=" + index + ", after=" + after.get() + '}';
    }
}
