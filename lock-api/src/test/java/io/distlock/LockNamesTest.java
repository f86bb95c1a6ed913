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

    @Test
    void encode_invalidName_rejected() {
        assertThatThrownBy(() -> LockNames.encode("")).isInstanceOf(IllegalArgumentException.class);
    }
}
