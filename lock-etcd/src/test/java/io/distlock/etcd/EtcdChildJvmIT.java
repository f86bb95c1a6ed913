package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.fencing.InMemoryFencingGuard;
import io.distlock.fencing.StaleTokenException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A holder in a child JVM frozen (SIGSTOP) past its lease. */
class EtcdChildJvmIT {
    private static EtcdTestServer server;

    @BeforeAll
    static void start() {
        server = EtcdTestServer.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static void signal(Process p, String sig) throws Exception {
        Process k = new ProcessBuilder("kill", sig, Long.toString(p.pid()))
                .inheritIO()
                .start();
        assertThat(k.waitFor(10, TimeUnit.SECONDS) && k.exitValue() == 0).isTrue();
    }

    private static final List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();

    private static String next(BlockingQueue<String> lines, String prefix, long timeoutMs) throws Exception {
        for (String l : seen) {
            if (l.startsWith(prefix)) {
                seen.remove(l);
                return l;
            }
        }
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            long left = end - System.nanoTime();
            String l = lines.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
            if (l == null) {
                throw new AssertionError("no line starting with '" + prefix + "' within " + timeoutMs + " ms");
            }
            if (l.startsWith(prefix)) {
                return l;
            }
            seen.add(l);
        }
    }

    @Test
    void pausedHolderJvm_otherAcquiresWithLargerToken_resumedHolderLostAndFencedOff() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(List.of(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        ChildHolderMain.class.getName(),
                        server.endpoint(),
                        "frozen",
                        "1000"))
                .redirectErrorStream(true)
                .start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader r =
                            new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String l; (l = r.readLine()) != null; ) {
                            lines.add(l);
                        }
                    } catch (java.io.IOException e) {
                        // child gone
                    }
                },
                "distlock-etcd-test-child-reader");
        reader.setDaemon(true);
        reader.start();
        InMemoryFencingGuard resource = new InMemoryFencingGuard();
        try (EtcdLockProvider other = EtcdLockProvider.builder()
                .etcdOptions(
                        EtcdLockOptions.builder().endpoints(server.endpoint()).build())
                .options(LockOptions.defaults()
                        .mutate()
                        .leaseTime(Duration.ofSeconds(2))
                        .build())
                .build()) {
            long childToken = Long.parseLong(next(lines, "TOKEN ", 20_000).substring(6));
            resource.check("row", childToken); // the child's write before the pause is accepted
            next(lines, "WRITE ", 5_000);
            signal(child, "-STOP");
            seen.clear();
            try {
                Lease mine =
                        other.lock("frozen").tryAcquire(Duration.ofSeconds(10)).orElseThrow();
                assertThat(mine.fencingToken().getAsLong()).isGreaterThan(childToken);
                resource.check("row", mine.fencingToken().getAsLong());
                lines.clear();
                seen.clear();
                signal(child, "-CONT");
                // the resumed child's next write carries its old token: the resource refuses it
                String write = next(lines, "WRITE ", 5_000);
                long token = Long.parseLong(write.split(" ")[1]);
                assertThatThrownBy(() -> resource.check("row", token)).isInstanceOf(StaleTokenException.class);
                // and the child is told its lease is gone
                next(lines, "LOST", 3_000);
                mine.release();
            } finally {
                signal(child, "-CONT");
            }
        } finally {
            child.destroy();
            if (!child.waitFor(10, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
    }
}
