package io.distlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.memory.MemoryLockProvider;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
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

    @Test
    void open_withCustomizer_addsObserverAndKeepsUriLeaseTime() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        LockObserver observer = new LockObserver() {
            @Override
            public void acquired(String backend, String lockName, Duration waited, OptionalLong token) {
                events.add("acquired " + lockName);
            }
        };
        try (LockProvider p = LockProviders.open(
                URI.create("mem://providers-customizer?leaseTime=2s"),
                o -> o.mutate().observer(observer).build())) {
            try (Lease lease = p.lock("y").acquire()) {
                assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofSeconds(2));
            }
        }
        assertThat(events).containsExactly("acquired y");
    }

    @Test
    void open_customizerReturnsNull_namesTheRule() {
        assertThatThrownBy(() -> LockProviders.open(URI.create("mem://x"), o -> null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("customizer must not return null");
    }

    @Test
    void factoryWithoutCustomizerSupport_defaultMethod_namesTheFactory() {
        io.distlock.spi.LockProviderFactory plain = new io.distlock.spi.LockProviderFactory() {
            @Override
            public java.util.Set<String> schemes() {
                return java.util.Set.of("plain");
            }

            @Override
            public LockProvider open(URI uri) {
                throw new AssertionError("not called");
            }
        };
        assertThatThrownBy(() -> plain.open(URI.create("plain://x"), o -> o))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("does not accept a LockOptions customizer");
    }
}
