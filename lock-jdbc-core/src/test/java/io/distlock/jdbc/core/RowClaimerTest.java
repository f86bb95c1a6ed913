package io.distlock.jdbc.core;

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
    void sqlAfter_boundKeyAndNamedIndex_startsAfterTheBoundValue() {
        RowClaimer claimer = new RowClaimer("stock", "id", Map.of("status", "FREE"), 10, "status_id");
        assertThat(claimer.sql())
                .isEqualTo("SELECT id FROM stock FORCE INDEX (status_id) WHERE status = ? ORDER BY id LIMIT 10"
                        + " FOR UPDATE SKIP LOCKED");
        assertThat(claimer.sqlAfter())
                .isEqualTo("SELECT id FROM stock FORCE INDEX (status_id) WHERE status = ? AND id > ? ORDER BY id"
                        + " LIMIT 10 FOR UPDATE SKIP LOCKED");
        assertThat(new RowClaimer("stock", "id", Map.of(), 5, null).sqlAfter())
                .isEqualTo("SELECT id FROM stock WHERE id > ? ORDER BY id LIMIT 5 FOR UPDATE SKIP LOCKED");
    }

    @Test
    void identifiersAndLimit_unsafe_rejectedNamingTheArgument() {
        assertThatThrownBy(() -> new RowClaimer("stock", "id", Map.of(), 1, "i) UNION SELECT 1 (x"))
                .hasMessageContaining("index");
        assertThatThrownBy(() -> new RowClaimer("stock", "id`x", Map.of(), 1)).hasMessageContaining("keyColumn");
        assertThatThrownBy(() -> new RowClaimer("stock", "id", Map.of("1=1 OR x", 1), 1))
                .hasMessageContaining("where column");
        assertThatThrownBy(() -> new RowClaimer("stock", "id", Map.of(), 0)).hasMessageContaining("limit");
    }
}
