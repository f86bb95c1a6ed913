package io.distlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.memory.MemoryLockProvider;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LockProvidersTest {

    @Test
    void open_memUri_givesSharedNamedServer() throws Exception {
        try (LockProvider a = LockProviders.open("mem://providers-test?leaseTime=2s");
                LockProvider b = LockProviders.open("mem://providers-test")) {
            assertThat(a).isInstanceOf(MemoryLockProvider.class);
            assertThat(a.backend()).isEqualTo("mem");
            try (Lease lease = a.lock("x").acquire()) {
                assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofSeconds(2));
                assertThat(b.lock("x").tryAcquire()).isEmpty();
            }
        }
    }

    @Test
    void open_unknownScheme_listsAvailableSchemes() {
        assertThatThrownBy(() -> LockProviders.open("nosuch://host"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("no lock backend for scheme 'nosuch'")
                .hasMessageContaining("[mem]");
    }

    @Test
    void open_malformedOrSchemeless_clearError() {
        assertThatThrownBy(() -> LockProviders.open("::not a uri"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("malformed");
        assertThatThrownBy(() -> LockProviders.open("localhost")).hasMessageContaining("has no scheme");
    }

    @Test
    void open_badOrUnknownParameter_namesItAndHidesPassword() {
        assertThatThrownBy(() -> LockProviders.open("mem://u:secret@x?leaseTime=soon"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("leaseTime")
                .hasMessageNotContaining("secret");
        assertThatThrownBy(() -> LockProviders.open("mem://x?colour=red&password=hunter2"))
                .hasMessageContaining("unknown parameter(s) [colour, password]")
                .hasMessageContaining("accepted: [autoRenew, leaseTime, maxHoldTime, maxRenewals]")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> LockProviders.open("mem://x?leaseTime=1ms"))
                .hasMessageContaining("leaseTime must be between");
    }

    @Test
    void availableSchemes_includesMem() {
        assertThat(LockProviders.availableSchemes()).containsKey("mem");
    }
}
