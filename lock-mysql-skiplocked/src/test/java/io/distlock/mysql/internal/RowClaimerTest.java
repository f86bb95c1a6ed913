package io.distlock.mysql.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RowClaimerTest {

    @Test
    void sql_bindsValuesAndSkipsLockedRows() {
        Map<String, Object> where = new LinkedHashMap<>();
        where.put("status", "FREE");
        where.put("order_id", null);
        assertThat(new RowClaimer("stock", "id", where, 10).sql())
                .isEqualTo("SELECT id FROM stock WHERE status = ? AND order_id IS NULL ORDER BY id LIMIT 10"
                        + " FOR UPDATE SKIP LOCKED");
    }

    @Test
    void identifiersAndLimit_unsafe_rejectedNamingTheArgument() {
        assertThatThrownBy(() -> new RowClaimer("stock", "id`x", Map.of(), 1)).hasMessageContaining("keyColumn");
        assertThatThrownBy(() -> new RowClaimer("stock", "id", Map.of("1=1 OR x", 1), 1))
                .hasMessageContaining("where column");
        assertThatThrownBy(() -> new RowClaimer("stock", "id", Map.of(), 0)).hasMessageContaining("limit");
    }
}
