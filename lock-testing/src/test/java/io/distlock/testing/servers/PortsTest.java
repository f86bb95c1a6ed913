package io.distlock.testing.servers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PortsTest {

    @Test
    void portsAreOutsideTheEphemeralRange_soNoOutgoingConnectionTakesAStoppedServersPort() {
        int[] ephemeral = Ports.ephemeralRange();
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            int port = Ports.free();
            assertThat(port).isGreaterThanOrEqualTo(Ports.LOWEST).isLessThan(65000);
            assertThat(port < ephemeral[0] || port > ephemeral[1])
                    .as("port %d outside the ephemeral range %d-%d", port, ephemeral[0], ephemeral[1])
                    .isTrue();
            assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
        }
    }

    @Test
    void aPortReservedByAnotherJvm_isNotHandedOutHere() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(
                        java.toString(), "-cp", System.getProperty("java.class.path"), PortsProbeMain.class.getName())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertThat(line).startsWith("PORTS ");
            Set<Integer> theirs = new HashSet<>();
            for (String p : line.substring(6).split(",")) {
                theirs.add(Integer.parseInt(p));
            }
            assertThat(theirs).hasSize(PortsProbeMain.COUNT);
            for (int port : theirs) {
                assertThat(Ports.reserve(port))
                        .as("port %d, reserved by the child JVM", port)
                        .isFalse();
            }
            child.destroyForcibly().waitFor();
            // the operating system drops a dead JVM's reservations
            int port = theirs.iterator().next();
            assertThat(Ports.reserve(port))
                    .as("port %d after the child JVM died", port)
                    .isTrue();
        } finally {
            child.destroyForcibly().waitFor();
        }
    }
}
