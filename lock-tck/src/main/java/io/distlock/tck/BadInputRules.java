package io.distlock.tck;

import static io.distlock.tck.TckSupport.present;
import static io.distlock.tck.TckSupport.since;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockNames;
import io.distlock.LockProvider;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The rules of SPEC.md section 4, "Bad input": invalid lock names and waits are rejected with a
 * clear exception before any I/O, and every valid name, however tricky, is its own lock.
 *
 * <p>Part of {@link LockProviderTck}, which implements every rule group; see {@link RuleGroup}.
 */
public interface BadInputRules extends RuleGroup {
    /**
     * TCK-4.1: invalid lock names (null, empty, blank, control characters, longer than 256 UTF-8
     * bytes, unpaired surrogates) are rejected by {@code lock()} with an {@link
     * IllegalArgumentException} whose message contains "lock name".
     *
     * <p>If this fails, check that {@code lock(name)} calls {@code io.distlock.LockNames.validate}
     * before anything else.
     */
    @Test
    @DisplayName("TCK-4.1 invalid lock names are rejected with IllegalArgumentException")
    default void tck_4_1_lock_invalidNames_throwIllegalArgument() {
        TckSupport tck = support();
        LockProvider a = tck.client();
        List<String> invalid = new ArrayList<>();
        invalid.add(null);
        invalid.add("");
        invalid.add(" ");
        invalid.add(" \u3000 ");
        invalid.add("a\u0000b");
        invalid.add("line\nbreak");
        invalid.add("tab\there");
        invalid.add("del\u007f");
        invalid.add("c1\u0085");
        invalid.add("x".repeat(257));
        invalid.add("\u00e9".repeat(129));
        invalid.add("\uD83D\uDD12".repeat(65));
        invalid.add("a\uD800");
        invalid.add("\uDC00b");
        invalid.add("\uDC00\uD800");
        for (String name : invalid) {
            assertThatThrownBy(() -> a.lock(name))
                    .as("TCK-4.1: lock(%s)", printable(name))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lock name");
        }
    }

    /**
     * TCK-4.2: names with characters that are special somewhere (Unicode, {@code /}, {@code ..},
     * braces, {@code %}, quotes, SQL and Lua syntax, whitespace, exactly 256 bytes) work, and
     * distinct names are distinct locks: held all at once by two clients, none blocks another, and
     * a third client can acquire none of them.
     *
     * <p>If this fails, check that names reach keys, paths and SQL only through {@code
     * LockNames.encode} or bound parameters, and that the encoding is injective (case-sensitive,
     * no trimming, no Unicode normalisation; MySQL: a binary collation).
     */
    @Test
    @DisplayName("TCK-4.2 tricky valid names work and are pairwise distinct locks")
    default void tck_4_2_lock_trickyNames_workAndNeverCollide() {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        LockProvider c = tck.client();
        List<String> tricky = trickyNames();
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < tricky.size(); i++) {
            String name = tricky.get(i);
            LockProvider owner = i % 2 == 0 ? a : b;
            Lease lease = present(
                    owner.lock(name).tryAcquire(),
                    "TCK-4.2: tryAcquire(" + printable(name) + ") while the other tricky names are held: it"
                            + " collides with one of "
                            + tricky.subList(0, i).stream()
                                    .map(BadInputRules::printable)
                                    .toList());
            assertThat(lease.lockName()).isEqualTo(name);
            leases.add(lease);
        }
        for (String name : tricky) {
            assertThat(c.lock(name).tryAcquire())
                    .as("TCK-4.2: a third client acquired held lock %s", printable(name))
                    .isEmpty();
        }
        for (int i = 0; i < leases.size(); i++) {
            assertThat(leases.get(i).release())
                    .as("TCK-4.2: release of %s", printable(tricky.get(i)))
                    .isTrue();
        }
        for (String name : tricky) {
            Lease again =
                    present(c.lock(name).tryAcquire(), "TCK-4.2: tryAcquire(" + printable(name) + ") after release");
            assertThat(again.release()).isTrue();
        }
    }

    /**
     * TCK-4.3: wait durations are checked: {@code null} throws {@link NullPointerException}, a
     * negative one {@link IllegalArgumentException} naming {@code maxWait}; {@code Duration.ZERO}
     * behaves like {@code tryAcquire()} (acquires a free lock, returns empty at once on a held one).
     *
     * <p>If this fails, check the duration checks in {@code tryAcquire(Duration)} (the engine's
     * {@code EngineLock.waitNanos}).
     */
    @Test
    @DisplayName("TCK-4.3 null, negative and zero waits")
    default void tck_4_3_tryAcquire_nullNegativeZeroWait_asSpecified() throws InterruptedException {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        String name = tck.name("durations");
        DistributedLock lockA = a.lock(name);
        assertThatThrownBy(() -> lockA.tryAcquire(null))
                .as("TCK-4.3: tryAcquire(null)")
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> lockA.tryAcquire(Duration.ofMillis(-1)))
                .as("TCK-4.3: tryAcquire(-1ms)")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxWait");
        assertThatThrownBy(() -> lockA.withLock(null, l -> 1))
                .as("TCK-4.3: withLock(null, ...)")
                .isInstanceOf(NullPointerException.class);
        Lease held = present(lockA.tryAcquire(Duration.ZERO), "TCK-4.3: tryAcquire(ZERO) on a free lock");
        long t0 = System.nanoTime();
        assertThat(b.lock(name).tryAcquire(Duration.ZERO))
                .as("TCK-4.3: tryAcquire(ZERO) on a held lock")
                .isEmpty();
        assertThat(since(t0)).as("TCK-4.3: tryAcquire(ZERO) must not wait").isLessThan(tck.slack());
        assertThat(held.isValid()).isTrue();
    }

    /**
     * TCK-4.4: a huge wait ({@code Duration.ofSeconds(Long.MAX_VALUE)}, beyond what fits in a long
     * of nanoseconds) acquires a free lock at once, and on a held lock waits (interruptibly) and
     * acquires when the holder releases.
     *
     * <p>If this fails, check for overflow in deadline arithmetic ({@code Duration.toNanos()} throws
     * {@code ArithmeticException}; {@code now + nanos} wraps negative).
     */
    @Test
    @DisplayName("TCK-4.4 a huge wait acquires a free lock at once and waits on a held one")
    default void tck_4_4_tryAcquire_hugeWait_noOverflow() throws Exception {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        String name = tck.name("huge");
        Duration huge = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);
        long t0 = System.nanoTime();
        Lease held = present(a.lock(name).tryAcquire(huge), "TCK-4.4: tryAcquire(huge) on a free lock");
        assertThat(since(t0)).as("TCK-4.4: tryAcquire(huge) on a free lock").isLessThan(tck.slack());
        Background<Optional<Lease>> waiter =
                tck.background("huge-waiter", () -> b.lock(name).tryAcquire(huge));
        Background<Optional<Lease>> interrupted =
                tck.background("huge-interrupted", () -> b.lock(name).tryAcquire(Duration.ofDays(365L * 300)));
        tck.awaitWaiting(waiter);
        tck.awaitWaiting(interrupted);
        assertThat(waiter.result().isDone())
                .as("TCK-4.4: tryAcquire(huge) on a held lock returned instead of waiting: %s", waiter.result())
                .isFalse();
        interrupted.thread().interrupt();
        assertThatThrownBy(() -> interrupted.get(tck.slack()))
                .as("TCK-4.4: interrupted tryAcquire(300 years)")
                .isInstanceOf(InterruptedException.class);
        assertThat(held.release()).isTrue();
        present(waiter.get(tck.slack().multipliedBy(2)), "TCK-4.4: tryAcquire(huge) after the holder released");
    }

    /**
     * TCK-4.5: a rejected call (bad name, null or negative wait) never disturbs a held lock: the
     * holder stays valid and nobody else can acquire.
     *
     * <p>If this fails, check that arguments are validated before any I/O and that validation errors
     * do not run cleanup that deletes the lock.
     */
    @Test
    @DisplayName("TCK-4.5 a rejected call never disturbs a held lock")
    default void tck_4_5_rejectedCall_heldLock_undisturbed() {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        LockProvider c = tck.client();
        String name = tck.name("undisturbed");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-4.5: tryAcquire");
        for (LockProvider p : List.of(a, b)) {
            DistributedLock l = p.lock(name);
            assertThatThrownBy(() -> l.tryAcquire(Duration.ofSeconds(-5))).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> l.tryAcquire(null)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> p.lock(name + "\u0000")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> p.lock(name + "\uD800")).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(held.isValid()).as("TCK-4.5: holder after rejected calls").isTrue();
        assertThat(c.lock(name).tryAcquire())
                .as("TCK-4.5: a third client after rejected calls")
                .isEmpty();
        assertThat(held.release()).as("TCK-4.5: holder's release").isTrue();
    }

    /**
     * TCK-4.6: hostile names, adversarial and random (seeded, reproducible with {@code
     * -Ddistlock.tck.seed=<seed>}), go through the provider: each name that breaks the lock-name
     * rule ({@code io.distlock.LockNames}) is rejected by {@code lock()} with an {@link
     * IllegalArgumentException} or {@link io.distlock.LockConfigurationException} whose message
     * names the argument ("lock name") and the rule ("must"); each valid name round-trips (acquire,
     * the lease names it, release). Two different names are never one lock: the valid names are
     * split in two halves; in turn, each half is held at once (by holder clients, at most 16 names
     * each, since some backends keep a connection per held lock), while another client acquires
     * and releases each name of the other half and cannot acquire any held one. Every pair of
     * names is thus checked: held together, or one held while the other is acquired.
     *
     * <p>The names cover the astral plane, combining marks, right-to-left text and bidi controls,
     * control characters and NUL, unpaired surrogates, {@code /}, {@code ..}, braces, {@code %}
     * (including {@code %}-escapes of other names), quotes, SQL and Lua metacharacters, names at and
     * over the 256-byte limit, and names that differ only in case, Unicode normalisation or
     * compatibility form.
     *
     * <p>If this fails, check that names reach keys, paths and SQL only through {@code
     * LockNames.encode} or bound parameters (never trimmed, case-folded, normalised or truncated),
     * that the storage compares keys byte for byte (MySQL: a binary collation) and has room for 3 ×
     * 256 encoded characters, and that {@code lock()} calls {@code LockNames.validate} first.
     */
    @Test
    @DisplayName("TCK-4.6 hostile names (adversarial and seeded random) are rejected clearly or are distinct locks")
    default void tck_4_6_lock_hostileNames_rejectedOrDistinctLocks() {
        TckSupport tck = support();
        long seed =
                Long.getLong("distlock.tck.seed", ThreadLocalRandom.current().nextLong());
        String rule = "TCK-4.6 (seed " + seed + ", rerun with -Ddistlock.tck.seed=" + seed + ")";
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        LockProvider c = tck.client();
        List<String> valid = new ArrayList<>();
        for (String name : HostileNames.generate(seed, 24)) {
            String broken = HostileNames.ruleBroken(name);
            if (broken == null) {
                valid.add(name);
                continue;
            }
            assertThatThrownBy(() -> a.lock(name))
                    .as("%s: lock(%s) breaks the rule (%s) and must be rejected", rule, printable(name), broken)
                    .isInstanceOfAny(IllegalArgumentException.class, io.distlock.LockConfigurationException.class)
                    .hasMessageContaining("lock name")
                    .hasMessageContaining("must");
        }
        List<String> even = new ArrayList<>();
        List<String> odd = new ArrayList<>();
        for (int i = 0; i < valid.size(); i++) {
            (i % 2 == 0 ? even : odd).add(valid.get(i));
        }
        // Two phases with the roles swapped: one half held (by holder clients, at most
        // HostileNames.HOLDS_PER_CLIENT names each: some backends keep a connection per held lock), the
        // other half acquired and released one by one by another client, which must also find every
        // held name held. Twins (case, normalisation, escapes) sit next to each other in the list, so
        // they fall into different halves.
        List<LockProvider> holders = new ArrayList<>();
        holders.add(a);
        holders.add(b);
        hostilePhase(rule, holders, c, even, odd);
        hostilePhase(rule, holders, c, odd, even);
    }

    /**
     * One phase of TCK-4.6: {@code held} names are held at once by {@code holders} (more clients are
     * opened so that none holds more than {@code HostileNames.HOLDS_PER_CLIENT}), while {@code other}
     * acquires and releases each {@code free} name and finds every held one held.
     */
    private void hostilePhase(
            String rule, List<LockProvider> holders, LockProvider other, List<String> held, List<String> free) {
        while (holders.size() * HostileNames.HOLDS_PER_CLIENT < held.size()) {
            holders.add(support().client());
        }
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < held.size(); i++) {
            String name = held.get(i);
            Lease lease = present(
                    holders.get(i % holders.size()).lock(name).tryAcquire(),
                    rule + ": tryAcquire(" + printable(name) + ") while " + i
                            + " other hostile names are held: it collides with one of them");
            assertThat(lease.lockName()).as("%s: lease name", rule).isEqualTo(name);
            leases.add(lease);
        }
        for (String name : free) {
            Lease lease = present(
                    other.lock(name).tryAcquire(),
                    rule + ": another client's tryAcquire(" + printable(name)
                            + ") of a name nobody holds: it collides with a held name");
            assertThat(lease.lockName()).as("%s: lease name", rule).isEqualTo(name);
            assertThat(lease.release())
                    .as("%s: release of %s", rule, printable(name))
                    .isTrue();
        }
        for (String name : held) {
            assertThat(other.lock(name).tryAcquire())
                    .as("%s: another client acquired held lock %s", rule, printable(name))
                    .isEmpty();
        }
        for (Lease lease : leases) {
            assertThat(lease.release())
                    .as("%s: release of %s", rule, printable(lease.lockName()))
                    .isTrue();
        }
    }

    /**
     * TCK-4.7: long names that differ only in their last character are different locks: for
     * characters of 1, 2, 3 and 4 UTF-8 bytes, two names of exactly 256 bytes (the limit) — and, for
     * ASCII, two of 192 bytes — that share everything but the last character are held at once by two
     * clients, and a third client can acquire neither.
     *
     * <p>If this fails, check that no layer cuts a name to a column or key size (a {@code
     * VARCHAR(191)} under a utf8mb4 index limit, a key length cap, a path component limit): key,
     * column and path sizes must hold a full 256-byte name, encoded.
     */
    @Test
    @DisplayName("TCK-4.7 long names that differ only in their last character are different locks")
    default void tck_4_7_lock_longNamesDifferingAtTheEnd_areDifferentLocks() {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        LockProvider c = tck.client();
        String p = "l"
                + HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt()) + "-";
        List<String[]> pairs = new ArrayList<>();
        String[][] ends = {{"x", "y"}, {"\u00e9", "\u00e8"}, {"\u20ac", "\u20a4"}, {"\uD83D\uDD12", "\uD83D\uDD13"}};
        for (String[] end : ends) {
            String body = longBody(p, end[0], LockNames.MAX_UTF8_BYTES - utf8(end[0]));
            pairs.add(new String[] {body + end[0], body + end[1]});
        }
        String shorter = longBody(p + "s", "x", 191);
        pairs.add(new String[] {shorter + "x", shorter + "y"});
        for (String[] pair : pairs) {
            Lease first = present(a.lock(pair[0]).tryAcquire(), "TCK-4.7: tryAcquire(" + printable(pair[0]) + ")");
            Lease second = present(
                    b.lock(pair[1]).tryAcquire(),
                    "TCK-4.7: another client's tryAcquire(" + printable(pair[1]) + ") while "
                            + printable(pair[0]) + " (" + utf8(pair[0])
                            + " bytes, the same but for the last character) is held: the names collide");
            assertThat(second.lockName()).isEqualTo(pair[1]);
            assertThat(c.lock(pair[0]).tryAcquire())
                    .as("TCK-4.7: a third client acquired held lock %s", printable(pair[0]))
                    .isEmpty();
            assertThat(c.lock(pair[1]).tryAcquire())
                    .as("TCK-4.7: a third client acquired held lock %s", printable(pair[1]))
                    .isEmpty();
            assertThat(first.release()).isTrue();
            assertThat(second.release()).isTrue();
        }
    }

    /** {@code prefix} padded with {@code unit} (then ASCII {@code z}) to exactly {@code bytes} UTF-8 bytes. */
    private static String longBody(String prefix, String unit, int bytes) {
        StringBuilder sb = new StringBuilder(prefix);
        while (utf8(sb.toString()) + utf8(unit) <= bytes) {
            sb.append(unit);
        }
        while (utf8(sb.toString()) < bytes) {
            sb.append('z');
        }
        return sb.toString();
    }

    private static int utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    /** Valid names that are special somewhere (TCK-4.2), with a prefix unique to the call. */
    private static List<String> trickyNames() {
        String p = "t"
                + HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt()) + "-";
        List<String> names = new ArrayList<>(List.of(
                p + "\u00fcn\u00ef\u00e7\u00f8d\u00e9-\u9501-\uD83D\uDD12",
                p + "a/b",
                p + "a%2Fb",
                p + "a%2fb",
                p + "../..",
                p + "..",
                p + "/",
                p + "{slot}",
                p + "a{b}c",
                p + "%",
                p + "%%",
                p + "'",
                p + "\"",
                p + "`",
                p + "'; DROP TABLE x; --",
                p + "]]",
                p + "]=]..]]",
                p + "lock",
                p + "LOCK",
                p + "a",
                p + "a ",
                p + " a",
                p + "a+b",
                p + "a b",
                p + "*",
                p + "?",
                p + "\\",
                p + ":",
                p + "e\u0301",
                p + "\u00e9"));
        int prefixBytes = p.getBytes(StandardCharsets.UTF_8).length;
        names.add(p + "x".repeat(256 - prefixBytes));
        names.add(p + "y".repeat(255 - prefixBytes));
        StringBuilder emoji = new StringBuilder(p);
        while (emoji.toString().getBytes(StandardCharsets.UTF_8).length + 4 <= 256) {
            emoji.append("\uD83D\uDD12");
        }
        while (emoji.toString().getBytes(StandardCharsets.UTF_8).length < 256) {
            emoji.append('z');
        }
        names.add(emoji.toString());
        return names;
    }

    /** {@code s} for a failure message: quoted, control characters and surrogates escaped. */
    private static String printable(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder("\"");
        String shown = s.length() > 40 ? s.substring(0, 20) + "..." + s.substring(s.length() - 10) : s;
        for (char c : shown.toCharArray()) {
            if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || Character.isSurrogate(c) || c == '"' || c == '\\') {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append("\" (").append(s.length()).append(" chars)").toString();
    }
}
