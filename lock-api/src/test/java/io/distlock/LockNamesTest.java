package io.distlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LockNamesTest {

    @Test
    void validate_nullEmptyBlank_rejectedNamingTheRule() {
        assertThatThrownBy(() -> LockNames.validate(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock name must not be null");
        assertThatThrownBy(() -> LockNames.validate("")).hasMessageContaining("lock name must not be empty");
        assertThatThrownBy(() -> LockNames.validate(" \t ")).hasMessageContaining("lock name must not be blank");
    }

    @Test
    void validate_controlCharacter_rejectedWithPosition() {
        assertThatThrownBy(() -> LockNames.validate("a\nb"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("control characters")
                .hasMessageContaining("U+000A at index 1");
        assertThatThrownBy(() -> LockNames.validate("a\u0000")).hasMessageContaining("U+0000");
        assertThatThrownBy(() -> LockNames.validate("a\u0085")).hasMessageContaining("U+0085");
    }

    @Test
    void validate_unpairedSurrogate_rejected() {
        assertThatThrownBy(() -> LockNames.validate("x\uD800")).hasMessageContaining("unpaired surrogate");
        assertThatThrownBy(() -> LockNames.validate("\uDC00x")).hasMessageContaining("unpaired surrogate");
    }

    @Test
    void validate_lengthCountsUtf8Bytes() {
        assertThat(LockNames.validate("a".repeat(256))).hasSize(256);
        assertThatThrownBy(() -> LockNames.validate("a".repeat(257)))
                .hasMessageContaining("at most 256 UTF-8 bytes (was 257)");
        // 'é' is 2 bytes, '€' 3 bytes, an emoji 4 bytes
        assertThat(LockNames.validate("é".repeat(128))).isNotNull();
        assertThatThrownBy(() -> LockNames.validate("é".repeat(129))).hasMessageContaining("was 258");
        assertThat(LockNames.validate("\uD83D\uDE00".repeat(64))).isNotNull();
        assertThatThrownBy(() -> LockNames.validate("\uD83D\uDE00".repeat(65))).hasMessageContaining("was 260");
    }

    @Test
    void encode_trickyNames_onlySafeCharactersAndRoundTrip() {
        List<String> names = List.of(
                "a/b",
                "..",
                ".",
                "{slot}",
                "%41",
                "it's",
                "\"q\"",
                "'; DROP TABLE locks; --",
                "]]..redis.call('FLUSHALL')..[[",
                "日本語",
                "\uD83D\uDE00",
                "a b",
                "A",
                "a",
                "-_");
        for (String n : names) {
            String e = LockNames.encode(n);
            assertThat(e).matches("[A-Za-z0-9_%-]+");
            assertThat(e).doesNotContain("/", ".", "{", "}", "'", "\"", " ");
            assertThat(LockNames.decode(e)).isEqualTo(n);
        }
    }

    @Test
    void encode_isInjectiveOnRandomNames() {
        Random random = new Random(42);
        Set<String> seen = new HashSet<>();
        Set<String> encoded = new HashSet<>();
        for (int i = 0; i < 20_000; i++) {
            StringBuilder sb = new StringBuilder();
            int len = 1 + random.nextInt(6);
            for (int j = 0; j < len; j++) {
                sb.append("aA%2F/._-{}é".charAt(random.nextInt(12)));
            }
            String n = sb.toString();
            if (n.isBlank() || !seen.add(n)) {
                continue;
            }
            assertThat(encoded.add(LockNames.encode(n)))
                    .as("encoding of %s collides", n)
                    .isTrue();
        }
    }

    /**
     * Injectivity under fuzzing: random names over the whole Unicode range (astral plane, combining
     * marks, RTL, specials) and over a small alphabet rich in '%', hex digits and case twins (so
     * that raw text and escapes of other names meet often); every valid name's encoding decodes
     * back to it, is safe, and no two distinct names share one. The seed is printed on failure.
     */
    @Test
    void encode_fuzzedNames_injectiveSafeAndReversible() {
        long seed = Long.getLong("distlock.test.seed", System.nanoTime());
        Random random = new Random(seed);
        java.util.Map<String, String> byEncoding = new java.util.HashMap<>();
        String alphabet = "%2fF/aA._-{}0e\u00e9\u0301";
        int checked = 0;
        for (int i = 0; i < 20_000; i++) {
            StringBuilder sb = new StringBuilder();
            int len = 1 + random.nextInt(i % 2 == 0 ? 8 : 40);
            for (int j = 0; j < len; j++) {
                if (i % 2 == 0) {
                    sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
                } else {
                    int cp = random.nextInt(4) == 0
                            ? random.nextInt(0x80)
                            : random.nextInt(Character.MAX_CODE_POINT + 1);
                    sb.appendCodePoint(cp);
                }
            }
            String name = sb.toString();
            String encoded;
            try {
                encoded = LockNames.encode(name);
            } catch (IllegalArgumentException e) {
                assertThat(e.getMessage())
                        .as("seed %d: rejection of %s", seed, name)
                        .startsWith("lock name must");
                continue;
            }
            checked++;
            assertThat(encoded).as("seed %d", seed).matches("[A-Za-z0-9_%-]+");
            assertThat(encoded.length()).isLessThanOrEqualTo(3 * LockNames.MAX_UTF8_BYTES);
            assertThat(LockNames.decode(encoded))
                    .as("seed %d: decode(encode(%s))", seed, name)
                    .isEqualTo(name);
            String other = byEncoding.putIfAbsent(encoded, name);
            assertThat(other == null || other.equals(name))
                    .as("seed %d: %s and %s both encode to %s", seed, other, name, encoded)
                    .isTrue();
        }
        assertThat(checked).as("seed %d: valid names checked", seed).isGreaterThan(10_000);
    }

    @Test
    void encode_invalidName_rejected() {
        assertThatThrownBy(() -> LockNames.encode("")).isInstanceOf(IllegalArgumentException.class);
    }
}
