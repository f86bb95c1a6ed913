package io.distlock.redis.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;

class ConnectionChecksTest {
    @Test
    void hostAndPort_portBounds_acceptedOrRejectedNamingTheRule() {
        assertThat(ConnectionChecks.hostAndPort("h", 1).getPort()).isEqualTo(1);
        assertThat(ConnectionChecks.hostAndPort("h", 65535).getPort()).isEqualTo(65535);
        assertThatThrownBy(() -> ConnectionChecks.hostAndPort("h", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("port must be between 1 and 65535 (was 0)");
        assertThatThrownBy(() -> ConnectionChecks.hostAndPort("h", 65536))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("port must be between 1 and 65535 (was 65536)");
    }

    @Test
    void hostAndPort_nullOrBlankHost_rejected() {
        assertThatThrownBy(() -> ConnectionChecks.hostAndPort(null, 6379))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("host must not be null");
        assertThatThrownBy(() -> ConnectionChecks.hostAndPort(" ", 6379))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("host must not be blank");
    }

    @Test
    void parseHostAndPort_hostPortOrBracketedIpv6_parsedOrRejectedNamingTheForm() {
        assertThat(ConnectionChecks.parseHostAndPort("h:7")).isEqualTo(new HostAndPort("h", 7));
        assertThat(ConnectionChecks.parseHostAndPort("[::1]:7")).isEqualTo(new HostAndPort("::1", 7));
        assertThatThrownBy(() -> ConnectionChecks.parseHostAndPort("::1:7")).hasMessageContaining("host:port");
        assertThatThrownBy(() -> ConnectionChecks.parseHostAndPort("[::1:7")).hasMessageContaining("[ipv6]:port");
        assertThatThrownBy(() -> ConnectionChecks.parseHostAndPort("h:x"))
                .hasMessageContaining("port must be a number");
    }

    @Test
    void hostPorts_listWithAndWithoutPorts_defaultPortAddedAndEmptyElementRejected() {
        assertThat(ConnectionChecks.hostPorts("a,b:2,[::1],[::2]:3", 6379, "host"))
                .containsExactly("a:6379", "b:2", "[::1]:6379", "[::2]:3");
        assertThatThrownBy(() -> ConnectionChecks.hostPorts("a,,b", 6379, "node"))
                .hasMessage("empty node in the node list");
    }

    @Test
    void keyPrefix_badLengthCharacterOrColonEdge_rejectedNamingTheRule() {
        assertThat(ConnectionChecks.keyPrefix("app:locks", 64)).isEqualTo("app:locks");
        assertThatThrownBy(() -> ConnectionChecks.keyPrefix("", 64)).hasMessageContaining("keyPrefix must be 1 to 64");
        assertThatThrownBy(() -> ConnectionChecks.keyPrefix("x".repeat(65), 64)).hasMessageContaining("was 65");
        assertThatThrownBy(() -> ConnectionChecks.keyPrefix("a{b}", 64)).hasMessageContaining("U+007B");
        assertThatThrownBy(() -> ConnectionChecks.keyPrefix("a:", 64))
                .hasMessageContaining("must not start or end with ':'");
    }

    @Test
    void database_negative_rejected() {
        assertThat(ConnectionChecks.database(0)).isZero();
        assertThatThrownBy(() -> ConnectionChecks.database(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("database must not be negative (was -1)");
    }

    @Test
    void invalidKeyPrefixCharAt_allowedAndForbiddenCharacters_indexOfFirstForbidden() {
        assertThat(ConnectionChecks.invalidKeyPrefixCharAt("azAZ09_-.:")).isEqualTo(-1);
        assertThat(ConnectionChecks.invalidKeyPrefixCharAt("a{b}")).isEqualTo(1);
        assertThat(ConnectionChecks.invalidKeyPrefixCharAt("ab c")).isEqualTo(2);
        assertThat(ConnectionChecks.invalidKeyPrefixCharAt("é")).isZero();
        assertThat(ConnectionChecks.invalidKeyPrefixCharAt("a\n")).isEqualTo(1);
    }
}
