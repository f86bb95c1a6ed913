package io.distlock.redis.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PackedRenewalsTest {
    private static final RedisKeys KEYS = new RedisKeys("app:locks");

    @Test
    void call_packsOneLinePerLock_withTheKeysHeadAndTail() {
        PackedRenewals call = new PackedRenewals(KEYS, 2);
        call.add(RedisKeys.tag("orders/42"), "0a1b", 30_000);
        call.add(RedisKeys.tag("x y"), "ff", 5);

        ScriptRunner.Call c = call.call();

        assertThat(c.keys()).isEmpty();
        assertThat(c.args()).containsExactly("app:locks:{", "}:lock", "orders%2F42 0a1b 30000\nx%20y ff 5\n");
        assertThat(c.args().get(0) + RedisKeys.tag("orders/42") + c.args().get(1))
                .isEqualTo(KEYS.lockKey("orders/42"));
        assertThat(call.size()).isEqualTo(2);
    }

    @Test
    void add_beyondMaxLocks_isRefused() {
        PackedRenewals call = new PackedRenewals(KEYS, PackedRenewals.MAX_LOCKS);
        for (int i = 0; i < PackedRenewals.MAX_LOCKS; i++) {
            call.add("t" + i, "ab", 1);
        }

        assertThat(call.isFull()).isTrue();
        assertThatThrownBy(() -> call.add("one-more", "ab", 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("at most " + PackedRenewals.MAX_LOCKS);
    }

    @Test
    void tagOf_lockKey_returnsItsTag_andRefusesOtherKeys() {
        assertThat(PackedRenewals.tagOf(KEYS, KEYS.lockKey("a{b}c"))).isEqualTo(RedisKeys.tag("a{b}c"));
        assertThatThrownBy(() -> PackedRenewals.tagOf(KEYS, KEYS.tokenKey("a")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockKey must be a lock key");
        assertThatThrownBy(() -> PackedRenewals.tagOf(new RedisKeys("other"), KEYS.lockKey("a")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void answers_stringOrBytes_oneCharacterPerLock() {
        assertThat(PackedRenewals.answers("101", 3)).isEqualTo("101");
        assertThat(PackedRenewals.answers("10".getBytes(StandardCharsets.US_ASCII), 2))
                .isEqualTo("10");
        assertThat(PackedRenewals.answers("", 0)).isEmpty();
    }

    @Test
    void answers_wrongCountOrType_isRefused() {
        assertThatThrownBy(() -> PackedRenewals.answers("10", 3))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("of 3 locks answered for 2");
        assertThatThrownBy(() -> PackedRenewals.answers(7L, 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("answered 7");
    }
}
