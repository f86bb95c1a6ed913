package io.distlock.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class InMemoryFencingGuardTest {

    @Test
    void check_newerAndEqualTokensAccepted_olderRejected() {
        InMemoryFencingGuard guard = new InMemoryFencingGuard();
        guard.check("acct", 5);
        guard.check("acct", 5);
        guard.check("acct", 9);
        assertThatThrownBy(() -> guard.check("acct", 7))
                .isInstanceOf(StaleTokenException.class)
                .hasMessageContaining("stale fencing token 7")
                .hasMessageContaining("already accepted token 9")
                .satisfies(e ->
                        assertThat(((StaleTokenException) e).lastAccepted()).isEqualTo(9));
        assertThat(guard.lastAccepted("acct")).hasValue(9);
        guard.check("other", 1); // resources are independent
    }

    @Test
    void check_emptyResource_rejected() {
        assertThatThrownBy(() -> new InMemoryFencingGuard().check("", 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("resource");
    }

    @Test
    void jdbcGuard_badTableName_rejected() {
        assertThatThrownBy(() -> JdbcFencingGuard.create("x; DROP TABLE y"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("table must match");
        assertThat(JdbcFencingGuard.create().table()).isEqualTo("distlock_fence");
    }
}
