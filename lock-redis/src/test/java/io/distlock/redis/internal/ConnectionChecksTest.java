package io.distlock.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import javax.net.ssl.SSLSocketFactory;
import org.junit.jupiter.api.Test;

class ConnectionChecksTest {
    private static final SSLSocketFactory FACTORY = (SSLSocketFactory) SSLSocketFactory.getDefault();

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
    void checkTlsMaterial_materialWithoutTls_rejectedWithTheGivenHint() {
        assertThatThrownBy(() -> ConnectionChecks.checkTlsMaterial(false, null, FACTORY, "use x:// or tls(true)"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tlsCaFile and sslSocketFactory require tls=true (use x:// or tls(true))");
        assertThatThrownBy(() -> ConnectionChecks.checkTlsMaterial(true, Path.of("pom.xml"), FACTORY, "hint"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("set either tlsCaFile or sslSocketFactory, not both");
        ConnectionChecks.checkTlsMaterial(false, null, null, "hint");
        ConnectionChecks.checkTlsMaterial(true, Path.of("pom.xml"), null, "hint");
        ConnectionChecks.checkTlsMaterial(true, null, FACTORY, "hint");
    }

    @Test
    void readableTlsCaFile_missingFile_rejectedNamingIt() {
        assertThat(ConnectionChecks.readableTlsCaFile(null)).isNull();
        assertThat(ConnectionChecks.readableTlsCaFile(Path.of("pom.xml"))).isEqualTo(Path.of("pom.xml"));
        assertThatThrownBy(() -> ConnectionChecks.readableTlsCaFile(Path.of("/nonexistent/ca.pem")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tlsCaFile must be a readable file (was '/nonexistent/ca.pem')");
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
