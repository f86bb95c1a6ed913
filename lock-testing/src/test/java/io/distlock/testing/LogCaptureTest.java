package io.distlock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link LogCapture} sees TRACE lines of every logger, restores the levels, and finds encoded secrets. */
class LogCaptureTest {
    private static final String SECRET = "s3cret-Capture-Pw";

    @Test
    void capture_traceAndDebugOfLibraryLoggers_areCapturedAndLevelsRestoredAfterwards() {
        Logger existing = LoggerFactory.getLogger("redis.clients.jedis.Connection");
        Logger configuredAtError = LoggerFactory.getLogger("org.apache.zookeeper.ClientCnxn");
        assertThat(existing.isDebugEnabled()).isFalse();
        assertThat(configuredAtError.isWarnEnabled()).isFalse();
        String text;
        try (LogCapture logs = LogCapture.start()) {
            assertThat(logs.slf4jTraceEnabled()).isTrue();
            existing.trace("jedis trace line");
            configuredAtError.debug("zookeeper debug line");
            LoggerFactory.getLogger("io.grpc.netty.NettyClientHandler").trace("created during the capture");
            java.util.logging.Logger.getLogger("io.grpc.internal.Fine").log(Level.FINEST, "jul finest line");
            text = logs.text();
        }
        assertThat(text)
                .contains("TRACE redis.clients.jedis.Connection - jedis trace line")
                .contains("DEBUG org.apache.zookeeper.ClientCnxn - zookeeper debug line")
                .contains("created during the capture")
                .contains("FINEST io.grpc.internal.Fine jul finest line");
        assertThat(existing.isDebugEnabled()).isFalse();
        assertThat(configuredAtError.isWarnEnabled()).isFalse();
        assertThat(LoggerFactory.getLogger("io.grpc.netty.NettyClientHandler").isInfoEnabled())
                .as("a logger created during the capture gets the configured level back")
                .isFalse();
    }

    @Test
    void capture_nested_restoresOnlyAtTheOuterClose() {
        Logger l = LoggerFactory.getLogger("com.zaxxer.hikari.HikariConfig");
        try (LogCapture outer = LogCapture.start()) {
            try (LogCapture inner = LogCapture.start()) {
                assertThat(l.isTraceEnabled()).isTrue();
            }
            assertThat(l.isTraceEnabled()).isTrue();
        }
        assertThat(l.isTraceEnabled()).isFalse();
    }

    @Test
    void assertNoSecret_secretPlainHexOrBase64_fails() {
        LogCapture.assertNoSecret("nothing to see", SECRET);
        StringBuilder hex = new StringBuilder();
        for (byte b : SECRET.getBytes(StandardCharsets.UTF_8)) {
            hex.append(String.format("%02x", b));
        }
        for (String text : new String[] {
            "password=" + SECRET,
            "frame data: 0a05" + hex + "12",
            "HEX " + hex.toString().toUpperCase(java.util.Locale.ROOT),
            "Authorization: Basic " + Base64.getEncoder().encodeToString(SECRET.getBytes(StandardCharsets.UTF_8))
        }) {
            assertThatThrownBy(() -> LogCapture.assertNoSecret(text, SECRET))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("a secret appears")
                    .hasMessageNotContaining(SECRET);
        }
    }
}
