package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Reading provider URI parameters: every type, its defaults, its errors, and the common lock options. */
class UriParametersTest {

    private static UriParameters params(String query) {
        return UriParameters.of(URI.create("mem://x?" + query), "mem");
    }

    @Test
    void parameters_firstAndLastPairAndValuelessKey_areRead() {
        UriParameters p = params("a=1&b&c=3");
        assertThat(p.string("a", "d")).isEqualTo("1");
        assertThat(p.string("b", "d")).isEmpty();
        assertThat(p.string("c", "d")).isEqualTo("3");
        assertThat(p.string("missing", "d")).isEqualTo("d");
        assertThat(params("=v").string("", "d")).isEqualTo("v");
    }

    @Test
    void bool_everySpelling_andDefault() {
        UriParameters p = params("a=true&b=YES&c=1&d=false&e=no&f=0&g=maybe");
        assertThat(p.bool("a", null)).isTrue();
        assertThat(p.bool("b", null)).isTrue();
        assertThat(p.bool("c", null)).isTrue();
        assertThat(p.bool("d", null)).isFalse();
        assertThat(p.bool("e", null)).isFalse();
        assertThat(p.bool("f", null)).isFalse();
        assertThat(p.bool("missing", Boolean.TRUE)).isTrue();
        assertThat(p.bool("missing-too", Boolean.FALSE)).isFalse();
        assertThatThrownBy(() -> p.bool("g", null))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("'g' must be true or false (was 'maybe')");
    }

    @Test
    void integer_valueDefaultAndError() {
        UriParameters p = params("n=42&bad=x");
        assertThat(p.integer("n", 7)).isEqualTo(42);
        assertThat(p.integer("missing", 7)).isEqualTo(7);
        assertThatThrownBy(() -> p.integer("bad", 7))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("'bad' must be an integer");
    }

    @Test
    void duration_everyUnitIsoAndError() {
        UriParameters p = params("a=500ms&b=30s&c=5m&d=2h&e=1d&f=PT3S&g=soon");
        assertThat(p.duration("a", null)).isEqualTo(Duration.ofMillis(500));
        assertThat(p.duration("b", null)).isEqualTo(Duration.ofSeconds(30));
        assertThat(p.duration("c", null)).isEqualTo(Duration.ofMinutes(5));
        assertThat(p.duration("d", null)).isEqualTo(Duration.ofHours(2));
        assertThat(p.duration("e", null)).isEqualTo(Duration.ofDays(1));
        assertThat(p.duration("f", null)).isEqualTo(Duration.ofSeconds(3));
        assertThat(p.duration("missing", Duration.ofSeconds(9))).isEqualTo(Duration.ofSeconds(9));
        assertThatThrownBy(() -> p.duration("g", null))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("'g' must be a duration");
    }

    @Test
    void lockOptions_commonParameters_applied() {
        LockOptions o = params("leaseTime=5s&autoRenew=false&maxHoldTime=1m&maxRenewals=3")
                .lockOptions(LockOptions.defaults());
        assertThat(o.leaseTime()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.autoRenew()).isFalse();
        assertThat(o.maxHoldTime()).contains(Duration.ofMinutes(1));
        assertThat(o.maxRenewals()).hasValue(3);
        LockOptions untouched = params("").lockOptions(LockOptions.defaults());
        assertThat(untouched.leaseTime()).isEqualTo(LockOptions.DEFAULT_LEASE_TIME);
        assertThat(untouched.autoRenew()).isTrue();
        assertThatThrownBy(() -> params("leaseTime=1ms").lockOptions(LockOptions.defaults()))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("mem://x");
    }

    @Test
    void redact_uri_masksThePassword() {
        assertThat(UriParameters.redact(URI.create("redis://user:secret@host:1?password=p")))
                .isEqualTo("redis://user:****@host:1?password=****");
    }
}
