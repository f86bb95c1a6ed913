package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.LockOptions;
import io.distlock.LockProvider;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The round-trip floor, counted from the server's own statistics: an uncontended acquire+release is
 * exactly one script call to acquire and one to release, and nothing else (no extra command for
 * the owner value, the pool or renewal bookkeeping), whether or not the hand-off queue is on.
 */
class RedisRoundTripsIT {
    private static final Pattern CMDSTAT = Pattern.compile("^cmdstat_([a-z|]+):calls=(\\d+)", Pattern.MULTILINE);
    private static final Pattern READS = Pattern.compile("^total_reads_processed:(\\d+)", Pattern.MULTILINE);
    private static final int N = 100;

    private static RedisTckFixture fixture;
    private static RedisTckFixture handOff;

    @BeforeAll
    static void startServers() {
        fixture = RedisTckFixture.standaloneNoHandOff();
        handOff = RedisTckFixture.standalone(); // the hand-off queue is on by default
    }

    @AfterAll
    static void stopServers() {
        fixture.close();
        handOff.close();
    }

    @Test
    void uncontended_acquireReleaseWithoutHandOff_oneScriptCallEachAndNoOtherCommand() {
        assertOneCallEach(fixture, "round-trips");
    }

    @Test
    void uncontended_acquireReleaseWithHandOff_oneScriptCallEachAndNoOtherCommand() {
        assertOneCallEach(handOff, "round-trips-handoff");
    }

    private static void assertOneCallEach(RedisTckFixture f, String name) {
        // lease 10 s: no renewal falls inside the measured loop
        try (LockProvider p = f.newClient(
                        LockOptions.builder().leaseTime(Duration.ofSeconds(10)).build());
                Jedis admin = f.admin()) {
            p.lock(name).tryAcquire().orElseThrow().release(); // loads the scripts (NOSCRIPT → EVAL)
            Map<String, Long> before = commandCalls(admin);
            long readsBefore = reads(admin);

            for (int i = 0; i < N; i++) {
                p.lock(name).tryAcquire().orElseThrow().release();
            }

            long reads = reads(admin) - readsBefore - 1; // minus this INFO request itself
            Map<String, Long> after = commandCalls(admin);
            long scripts = after.getOrDefault("evalsha", 0L)
                    - before.getOrDefault("evalsha", 0L)
                    + after.getOrDefault("eval", 0L)
                    - before.getOrDefault("eval", 0L);
            assertThat(scripts).as("script calls for %d acquire+release", N).isEqualTo(2L * N);
            // requests read from all clients (commands inside the scripts are not requests)
            assertThat(reads).as("requests for %d acquire+release", N).isEqualTo(2L * N);
        }
    }

    private static long reads(Jedis admin) {
        Matcher m = READS.matcher(admin.info("stats"));
        assertThat(m.find()).as("total_reads_processed in INFO stats").isTrue();
        return Long.parseLong(m.group(1));
    }

    private static Map<String, Long> commandCalls(Jedis admin) {
        Map<String, Long> calls = new HashMap<>();
        Matcher m = CMDSTAT.matcher(admin.info("commandstats"));
        while (m.find()) {
            calls.put(m.group(1), Long.parseLong(m.group(2)));
        }
        return calls;
    }
}
