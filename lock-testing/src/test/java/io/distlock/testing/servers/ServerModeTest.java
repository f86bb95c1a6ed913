package io.distlock.testing.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ServerModeTest {
    private final String saved = System.getProperty(ServerMode.PROPERTY);

    @AfterEach
    void restore() {
        if (saved == null) {
            System.clearProperty(ServerMode.PROPERTY);
        } else {
            System.setProperty(ServerMode.PROPERTY, saved);
        }
    }

    @Test
    void configured_values_parsedCaseInsensitively() {
        System.setProperty(ServerMode.PROPERTY, "Docker");
        assertThat(ServerMode.configured()).isEqualTo(ServerMode.DOCKER);
        System.setProperty(ServerMode.PROPERTY, "local");
        assertThat(ServerMode.configured()).isEqualTo(ServerMode.LOCAL);
        assertThat(ServerMode.useDocker()).isFalse();
    }

    @Test
    void configured_unknownValue_exceptionNamesPropertyAndChoices() {
        System.setProperty(ServerMode.PROPERTY, "kubernetes");
        assertThatThrownBy(ServerMode::configured)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("distlock.servers")
                .hasMessageContaining("local, docker, auto")
                .hasMessageContaining("kubernetes");
    }

    @Test
    void binaries_missing_messageNamesPackageAndScript() {
        assertThatThrownBy(() -> Binaries.require("etcd-server", "/nonexistent/etcd"))
                .isInstanceOf(ServerStartException.class)
                .hasMessageContaining("apt-get install etcd-server")
                .hasMessageContaining("scripts/install-servers.sh");
    }

    @Test
    void optionalDependency_absent_requireNamesArtifactAndUser() {
        OptionalDependency absent = new OptionalDependency("org.example:absent", "org.example.absent.Marker");
        assertThat(absent.isPresent()).isFalse();
        assertThatThrownBy(() -> absent.require("distlock.servers=docker"))
                .isInstanceOf(ServerStartException.class)
                .hasMessageContaining("distlock.servers=docker needs org.example:absent")
                .hasMessageContaining("Optional dependencies");
    }

    @Test
    void optionalDependency_testcontainersOnThisClassPath_present() {
        assertThat(OptionalDependency.TESTCONTAINERS.isPresent()).isTrue();
        OptionalDependency.TESTCONTAINERS.require("docker mode");
    }
}
