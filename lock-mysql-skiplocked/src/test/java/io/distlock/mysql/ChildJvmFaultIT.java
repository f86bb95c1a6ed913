package io.distlock.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.fencing.JdbcFencingGuard;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Holders in child JVMs, killed with SIGKILL or paused with SIGSTOP. */
class ChildJvmFaultIT {
    private static MySqlTckFixture fixture;
    private static final JdbcFencingGuard GUARD = JdbcFencingGuard.create();

    @BeforeAll
    static void startServer() throws Exception {
        fixture = new MySqlTckFixture();
        try (Connection c = fixture.db().userConnection()) {
            GUARD.createTableIfMissing(c);
        }
    }

    @AfterAll
    static void stopServer() {
        if (fixture != null) {
            fixture.close();
        }
    }

    /** A child JVM running {@link HolderMain}. */
    private static final class Child implements AutoCloseable {
        final Process process;
        final PrintWriter stdin;
        final BlockingQueue<String> lines = new ArrayBlockingQueue<>(100);

        Child(String lockName, Duration lease) throws IOException {
            String java = ProcessHandle.current().info().command().orElse("java");
            ProcessBuilder pb = new ProcessBuilder(
                            java,
                            "-cp",
                            System.getProperty("java.class.path"),
                            HolderMain.class.getName(),
                            fixture.db().jdbcUrl(),
                            TestMariaDb.USER,
                            lockName,
                            String.valueOf(lease.toMillis()))
                    .redirectError(ProcessBuilder.Redirect.DISCARD);
            pb.environment().put("DISTLOCK_TEST_PASSWORD", TestMariaDb.PASSWORD);
            process = pb.start();
            stdin = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
            Thread reader = new Thread(
                    () -> {
                        try (BufferedReader r = new BufferedReader(
                                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                            String line;
                            while ((line = r.readLine()) != null) {
                                lines.offer(line);
                            }
                        } catch (IOException ignored) {
                            // child ended
                        }
                    },
                    "test-child-reader");
            reader.setDaemon(true);
            reader.start();
        }

        String next(String prefix) throws InterruptedException {
            while (true) {
                String line = lines.poll(60, TimeUnit.SECONDS);
                assertThat(line).as("child output starting with " + prefix).isNotNull();
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
        }

        long awaitHeldToken() throws InterruptedException {
            return Long.parseLong(next("HELD ").split(" ")[1]);
        }

        String ask(String command, String prefix) throws InterruptedException {
            stdin.println(command);
            return next(prefix);
        }

        void signal(String sig) throws IOException, InterruptedException {
            new ProcessBuilder("kill", "-" + sig, String.valueOf(process.pid()))
                    .start()
                    .waitFor(10, TimeUnit.SECONDS);
        }

        @Override
        public void close() throws Exception {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static MySqlLockProvider client(Duration lease) {
        return fixture.newMySqlClient(LockOptions.builder().leaseTime(lease).build());
    }

    @Test
    void holderKilled9_lockFreeAsSoonAsServerSeesDisconnect() throws Exception {
        String name = "child-kill9";
        Duration lease = Duration.ofSeconds(20);
        try (Child child = new Child(name, lease);
                MySqlLockProvider other = client(lease)) {
            long childToken = child.awaitHeldToken();
            assertThat(other.lock(name).tryAcquire()).isEmpty();
            long killed = System.nanoTime();
            child.process.destroyForcibly(); // SIGKILL
            Lease l = other.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            long freedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            assertThat(freedMillis).as("long before the 20 s lease").isLessThan(3000);
            assertThat(l.fencingToken().getAsLong()).isGreaterThan(childToken);
            l.release();
        }
    }

    @Test
    void holderPaused_serverDropsItNextHolderFencesItAndResumedLeaseIsLost() throws Exception {
        String name = "child-sigstop";
        Duration lease = Duration.ofSeconds(2);
        try (Child child = new Child(name, lease);
                MySqlLockProvider other = client(lease)) {
            long childToken = child.awaitHeldToken();
            assertThat(child.ask("write", "WRITE")).isEqualTo("WRITE OK");
            child.signal("STOP");
            try {
                long paused = System.nanoTime();
                Lease l = other.lock(name).tryAcquire(Duration.ofSeconds(15)).orElseThrow();
                long freedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - paused);
                assertThat(freedMillis)
                        .as("server drops the paused holder within about the lease")
                        .isBetween(500L, lease.toMillis() + 2000);
                long token = l.fencingToken().getAsLong();
                assertThat(token).isGreaterThan(childToken);
                try (Connection c = fixture.db().userConnection()) {
                    c.setAutoCommit(false);
                    GUARD.check(c, name, token);
                    c.commit();
                }
                child.signal("CONT");
                assertThat(child.ask("write", "WRITE")).isEqualTo("WRITE STALE");
                assertThat(child.ask("valid", "VALID")).isEqualTo("VALID false");
                assertThat(l.isValid()).isTrue();
                l.release();
            } finally {
                child.signal("CONT");
            }
        }
    }

    @Test
    void holderConnectionKilledByAdmin_childLeaseLostAndOtherAcquires() throws Exception {
        String name = "child-kill-connection";
        Duration lease = Duration.ofSeconds(2);
        try (Child child = new Child(name, lease);
                MySqlLockProvider other = client(lease)) {
            String[] held = child.next("HELD ").split(" ");
            long childToken = Long.parseLong(held[1]);
            fixture.kill(Long.parseLong(held[2]));
            Lease l = other.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            assertThat(l.fencingToken().getAsLong()).isGreaterThan(childToken);
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> child.ask("valid", "VALID").equals("VALID false"));
            l.release();
        }
    }
}
