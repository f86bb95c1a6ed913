package io.distlock.redis.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.LockNames;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

class RedisKeysTest {
    private final RedisKeys keys = new RedisKeys("distlock");

    @Test
    void keys_anyName_lockAndCounterShareHashSlot() {
        for (String name :
                List.of("a", "orders/42", "{x}", "}{", "a{b}c", "{}", "ünïcödé", "{distlock:{y}:lock}", "%7B")) {
            assertThat(JedisClusterCRC16.getSlot(keys.lockKey(name)))
                    .as(name)
                    .isEqualTo(JedisClusterCRC16.getSlot(keys.tokenKey(name)));
        }
    }

    @Test
    void keys_nameWithBraces_slotIsThatOfTheEncodedName() {
        String name = "{victim}";
        String enc = LockNames.encode(name);
        assertThat(enc).doesNotContain("{").doesNotContain("}");
        assertThat(JedisClusterCRC16.getSlot(keys.lockKey(name))).isEqualTo(JedisClusterCRC16.getSlot(enc));
        // the braces in the name cannot select the slot of the string between them
        assertThat(keys.lockKey(name)).isEqualTo("distlock:{" + enc + "}:lock");
    }

    @Test
    void keys_differentNames_differentKeys() {
        assertThat(keys.lockKey("a/b")).isNotEqualTo(keys.lockKey("a%2Fb"));
        assertThat(keys.channel("a")).isEqualTo("distlock:{a}:released");
        assertThat(keys.tokenKey("a")).isEqualTo("distlock:{a}:token");
    }
}
