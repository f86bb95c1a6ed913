package io.distlock.tck;

import io.distlock.LockNames;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Lock names meant to break key encodings: a fixed adversarial list and seeded random ones (the same
 * seed gives the same names). Some break the lock-name rule on purpose (control characters, NUL,
 * unpaired surrogates, more than 256 UTF-8 bytes); {@link #ruleBroken} tells which.
 */
final class HostileNames {

    /**
     * At most this many hostile names are held by one client at once in TCK-4.6: some backends keep
     * a connection per held lock.
     */
    static final int HOLDS_PER_CLIENT = 16;

    /** Code point pools the random names draw from. */
    private static final int[][] POOLS = {
        {0x21, 0x7E}, // printable ASCII, incl. / . { } % ' " ` \\ ; - * ? [ ] =
        {0x21, 0x2F}, // ASCII punctuation only
        {0x41, 0x5A}, // upper case
        {0x61, 0x7A}, // lower case
        {0x00A0, 0x00FF}, // Latin-1 (NBSP, é, ß, ÿ)
        {0x0300, 0x036F}, // combining marks
        {0x05D0, 0x05EA}, // Hebrew (RTL)
        {0x0627, 0x064A}, // Arabic (RTL)
        {0x200B, 0x200F}, // zero-width space/joiners, LRM, RLM
        {0x202A, 0x202E}, // bidi embeddings and overrides
        {0x4E00, 0x4E2F}, // CJK
        {0xFF01, 0xFF5E}, // full-width forms of ASCII
        {0xFFF9, 0xFFFF}, // specials, BOM neighbours, noncharacters
        {0x1F300, 0x1F64F}, // emoji (astral)
        {0x1D400, 0x1D433}, // mathematical alphanumerics (astral, NFKC-folds to ASCII)
        {0x10000, 0x1000F}, // first astral code points
        {0x10FFF0, 0x10FFFF}, // last code points
    };

    private HostileNames() {}

    /**
     * The adversarial names followed by {@code random} seeded random names, without duplicates. Each
     * name starts with a tag unique to this call, so that names of one run never meet another run's.
     */
    static List<String> generate(long seed, int random) {
        SplittableRandom rnd = new SplittableRandom(seed);
        String tag = "h" + Long.toHexString(rnd.nextLong() & 0xFFFFFFL) + "-";
        Set<String> names = new LinkedHashSet<>();
        for (String s : adversarial(tag)) {
            names.add(s);
        }
        for (int i = 0; i < random; i++) {
            String name = randomName(rnd, tag);
            names.add(name);
            if (rnd.nextInt(3) == 0) {
                // a twin differing only in normalisation or case
                names.add(variant(rnd, name));
            }
        }
        return new ArrayList<>(names);
    }

    /** Why {@code name} breaks the lock-name rule, or {@code null} if it is a valid name. */
    static String ruleBroken(String name) {
        try {
            LockNames.validate(name);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static List<String> adversarial(String t) {
        List<String> n = new ArrayList<>();
        // separators, traversal, templates, escapes
        n.add(t + "/");
        n.add(t + "//");
        n.add(t + "a/../b");
        n.add(t + "a/./b");
        n.add(t + "%2e%2e%2f");
        n.add(t + "%252F");
        n.add(t + "%");
        n.add(t + "%0");
        n.add(t + "%00");
        n.add(t + "{}");
        n.add(t + "${x}");
        n.add(t + "{{x}}");
        // an encoded form of another name must be a different name
        n.add(t + "%2F");
        n.add(LockNames.encode(t + "a/b"));
        // quotes, SQL, Lua, shell, glob, regex metacharacters
        n.add(t + "'");
        n.add(t + "''");
        n.add(t + "\"");
        n.add(t + "`");
        n.add(t + "\\");
        n.add(t + "\\'");
        n.add(t + "' OR '1'='1");
        n.add(t + "'); DELETE FROM distlock_locks; --");
        n.add(t + "_");
        n.add(t + "%_");
        n.add(t + "]]..redis.call('DEL',KEYS[1])..[[");
        n.add(t + "%s%d");
        n.add(t + "[=[");
        n.add(t + "*");
        n.add(t + "?");
        n.add(t + "[a-z]");
        n.add(t + "$(id)");
        n.add(t + ";|&");
        // Unicode: astral plane, combining marks, RTL and bidi controls, specials
        n.add(t + "\uD83D\uDD12\uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67");
        n.add(t + "\uD800\uDC00");
        n.add(t + "\uDBFF\uDFFF");
        n.add(t + "a\u0301\u0302\u0303\u0304\u0305");
        n.add(t + "\u05E9\u05DC\u05D5\u05DD");
        n.add(t + "\u0645\u0631\u062D\u0628\u0627");
        n.add(t + "\u202Egnp.exe");
        n.add(t + "\u200B");
        n.add(t + "\u200E\u200F");
        n.add(t + "\uFEFF");
        n.add(t + "\uFFFD");
        n.add(t + "\uFFFF");
        n.add(t + "\u00A0");
        // names that differ only in case, normalisation or compatibility form
        n.add(t + "Key");
        n.add(t + "key");
        n.add(t + "KEY");
        n.add(t + "\u00C5"); // Å precomposed
        n.add(t + "A\u030A"); // Å decomposed
        n.add(t + "\u212B"); // Angstrom sign
        n.add(t + "K"); // Latin K
        n.add(t + "\u212A"); // Kelvin sign
        n.add(t + "fi");
        n.add(t + "\uFB01"); // ligature fi
        n.add(t + "ss");
        n.add(t + "\u00DF"); // sharp s
        n.add(t + "\u1E9E"); // capital sharp s
        n.add(t + "i");
        n.add(t + "I");
        n.add(t + "\u0130"); // I with dot
        n.add(t + "\u0131"); // dotless i
        n.add(t + "A");
        n.add(t + "\uFF21"); // full-width A
        n.add(t + "\uD835\uDC00"); // mathematical bold A
        n.add(t + "x");
        n.add(t + "x ");
        n.add(" " + t + "x");
        // the length limit: exactly 256 bytes, and one more (ASCII, 2-, 3- and 4-byte characters)
        n.add(fill(t, "a", 256));
        n.add(fill(t, "a", 257));
        n.add(fill(t, "\u00E9", 256));
        n.add(fill(t, "\u20AC", 256));
        n.add(fill(t, "\uD83D\uDD12", 256));
        n.add(fill(t, "\uD83D\uDD12", 257));
        // control characters, NUL and broken UTF-16: rejected
        n.add(t + "\u0000");
        n.add(t + "a\u0000b");
        n.add(t + "\r\n");
        n.add(t + "\u001B[31m");
        n.add(t + "\u007F");
        n.add(t + "\u0085");
        n.add(t + "\u009F");
        n.add(t + "\uD800");
        n.add(t + "\uDFFF");
        n.add(t + "\uDC00\uD800");
        return n;
    }

    /** {@code prefix} padded with {@code unit} (and ASCII {@code z} to hit it exactly) to {@code bytes} UTF-8 bytes. */
    private static String fill(String prefix, String unit, int bytes) {
        StringBuilder sb = new StringBuilder(prefix);
        int unitBytes = unit.getBytes(StandardCharsets.UTF_8).length;
        while (utf8(sb) + unitBytes <= bytes) {
            sb.append(unit);
        }
        while (utf8(sb) < bytes) {
            sb.append('z');
        }
        return sb.toString();
    }

    private static int utf8(CharSequence s) {
        return s.toString().getBytes(StandardCharsets.UTF_8).length;
    }

    private static String randomName(SplittableRandom rnd, String tag) {
        StringBuilder sb = new StringBuilder(tag);
        int kind = rnd.nextInt(10);
        int length = kind == 0 ? 60 + rnd.nextInt(80) : 1 + rnd.nextInt(16);
        for (int i = 0; i < length; i++) {
            int roll = rnd.nextInt(100);
            if (roll == 0) {
                sb.append((char) rnd.nextInt(0x20)); // C0 control (invalid)
            } else if (roll == 1) {
                sb.append((char) (0xD800 + rnd.nextInt(0x800))); // lone surrogate (invalid)
            } else {
                int[] pool = POOLS[rnd.nextInt(POOLS.length)];
                sb.appendCodePoint(pool[0] + rnd.nextInt(pool[1] - pool[0] + 1));
            }
        }
        String s = sb.toString();
        return rnd.nextInt(2) == 0 ? s : variant(rnd, s);
    }

    private static String variant(SplittableRandom rnd, String s) {
        switch (rnd.nextInt(4)) {
            case 0:
                return Normalizer.normalize(s, Normalizer.Form.NFD);
            case 1:
                return Normalizer.normalize(s, Normalizer.Form.NFKC);
            case 2:
                return s.toUpperCase(Locale.ROOT);
            default:
                return s.toLowerCase(Locale.ROOT);
        }
    }
}
