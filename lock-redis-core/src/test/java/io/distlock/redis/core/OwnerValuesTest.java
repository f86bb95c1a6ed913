package io.distlock.redis.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.math.BigInteger;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Owner values are 128 bits from {@link SecureRandom}, fresh per acquisition, and carry nothing
 * derived from the time, the thread or the host: a value derived from any of those would repeat,
 * share fixed bits or be close (in Hamming distance) to the previous one.
 */
class OwnerValuesTest {
    private static final int N = 20_000;

    @Test
    void newOwner_manyValues_distinct128BitHex() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < N; i++) {
            String v = Owners.newOwner();
            assertThat(v).matches("[0-9a-f]{32}");
            assertThat(seen.add(v)).as("duplicate owner value %s", v).isTrue();
        }
    }

    @Test
    void newOwner_everyBitPosition_balanced() {
        int[] ones = new int[128];
        for (int i = 0; i < N; i++) {
            BigInteger v = new BigInteger(Owners.newOwner(), 16);
            for (int bit = 0; bit < 128; bit++) {
                if (v.testBit(bit)) {
                    ones[bit]++;
                }
            }
        }
        // binomial(N, 0.5): sd = sqrt(N)/2 ≈ 71; 6 sd ≈ 425 — a bit taken from time, thread or host is
        // (almost) constant within one run and lands far outside
        for (int bit = 0; bit < 128; bit++) {
            assertThat(ones[bit]).as("ones at bit %d", bit).isBetween(N / 2 - 425, N / 2 + 425);
        }
    }

    @Test
    void newOwner_consecutiveValuesSameThreadSameMillisecond_differInAboutHalfTheBits() {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            values.add(Owners.newOwner()); // mostly within the same millisecond, one thread
        }
        assertThat(meanHammingDistance(values)).isBetween(60.0, 68.0);
    }

    @Test
    void newOwner_concurrentThreads_independent() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<String> a = pool.submit(Owners::newOwner);
            Future<String> b = pool.submit(Owners::newOwner);
            List<String> pairs = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                a = pool.submit(Owners::newOwner);
                b = pool.submit(Owners::newOwner);
                pairs.add(a.get());
                pairs.add(b.get());
            }
            assertThat(new HashSet<>(pairs)).hasSize(pairs.size());
            assertThat(meanHammingDistance(pairs)).isBetween(58.0, 70.0);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void ownerSource_isStaticSecureRandom() throws Exception {
        Field f = Owners.class.getDeclaredField("RANDOM");
        assertThat(Modifier.isStatic(f.getModifiers())).isTrue();
        assertThat(f.getType()).isEqualTo(SecureRandom.class);
    }

    static double meanHammingDistance(List<String> values) {
        long sum = 0;
        for (int i = 1; i < values.size(); i++) {
            BigInteger x = new BigInteger(values.get(i - 1), 16).xor(new BigInteger(values.get(i), 16));
            sum += x.bitCount();
        }
        return (double) sum / (values.size() - 1);
    }
}
