package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.fencing.InMemoryFencingGuard;
import io.distlock.fencing.StaleTokenException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A lock holder in a child JVM, killed with SIGKILL or paused with SIGSTOP. */
class RedisProcessFaultIT {
    private static final long LEASE_MS = 800;
    private static LocalRedisServer server;
    private Process child;

    @BeforeAll
    static void startServer() {
        server = LocalRedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @AfterEach
    void killChild() throws InterruptedException {
        if (child != null && child.isAlive()) {
            signal("CONT");
            child.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }

    private final class Holder {
        final BufferedReader out;
        final PrintWriter in;
        final long token;

        Holder(String name) throws IOException {
            Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
            child = new ProcessBuilder(
                            java.toString(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            HolderMain.class.getName(),
                            server.host(),
                            Integer.toString(server.port()),
                            name,
                            Long.toString(LEASE_MS))
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            in = new PrintWriter(child.getOutputStream(), true, StandardCharsets.UTF_8);
            String line = out.readLine();
            assertThat(line).as("child output").startsWith("ACQUIRED ");
            token = Long.parseLong(line.substring("ACQUIRED ".length()));
        }
    }

    private void signal(String sig) {
        try {
            Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(child.pid())).start();
            assertThat(p.waitFor()).isZero();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static RedisLockProvider client() {
        return RedisLockProvider.builder()
                .standalone(server.host(), server.port())
                .leaseTime(Duration.ofMillis(LEASE_MS))
                .build();
    }

    @Test
    void holderKilledWithSigkill_lockFreeWithinTtlPlusMargin_nextTokenLarger() throws Exception {
        Holder h = new Holder("fault/kill");
        long killedAt = System.nanoTime();
        child.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        try (RedisLockProvider b = client();
                Lease next =
                        b.lock("fault/kill").tryAcquire(Duration.ofSeconds(5)).orElseThrow()) {
            Duration waited = Duration.ofNanos(System.nanoTime() - killedAt);
            assertThat(waited).isLessThan(Duration.ofMillis(LEASE_MS + 400));
            assertThat(next.fencingToken().getAsLong()).isGreaterThan(h.token);
        }
    }

    @Test
    void holderPausedPastTtl_otherAcquires_resumedHoldersWriteRejectedAndLeaseLost() throws Exception {
        Holder h = new Holder("fault/pause");
        InMemoryFencingGuard guard = new InMemoryFencingGuard();
        guard.check("resource", h.token); // the holder wrote once before the pause
        signal("STOP");
        try (RedisLockProvider b = client();
                Lease next =
                        b.lock("fault/pause").tryAcquire(Duration.ofSeconds(5)).orElseThrow()) {
            long newToken = next.fencingToken().getAsLong();
            assertThat(newToken).isGreaterThan(h.token);
            guard.check("resource", newToken);
            signal("CONT");
            h.in.println("STATUS");
            String status = h.out.readLine();
            assertThat(status).isEqualTo("STATUS false true " + h.token);
            // the resumed holder's write carries its old token: the resource rejects it
            assertThatThrownBy(() -> guard.check("resource", h.token)).isInstanceOf(StaleTokenException.class);
            assertThat(next.isValid()).isTrue();
            h.in.println("EXIT");
            assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
        }
    }
}
