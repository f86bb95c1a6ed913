package io.distlock.integration.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.build.ReadmeExamples;
import io.distlock.fencing.InMemoryFencingGuard;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * The README's leader election: two application contexts (two instances) on one in-JVM backend elect
 * one report writer; when it stops, the other takes over with a higher token. And the README's code
 * blocks are these files.
 */
class LeaderExampleTest {

    /** A store shared by both instances, checking each write's token. */
    static final class CheckingStore implements ReportStore {
        final InMemoryFencingGuard guard = new InMemoryFencingGuard();
        final List<Long> tokens = new CopyOnWriteArrayList<>();

        @Override
        public void write(String candidateId, long fencingToken) {
            guard.check("reports", fencingToken);
            tokens.add(fencingToken);
        }
    }

    private static AnnotationConfigApplicationContext instance(LockProvider locks, ReportStore store) {
        AnnotationConfigApplicationContext ctx = new AnnotationConfigApplicationContext();
        ctx.getBeanFactory().registerSingleton("locks", locks);
        ctx.getBeanFactory().registerSingleton("reports", store);
        ctx.register(LeaderConfiguration.class);
        ctx.refresh();
        return ctx;
    }

    @Test
    void twoInstances_oneLeaderWrites_theOtherTakesOverWithAHigherToken() {
        CheckingStore store = new CheckingStore();
        try (LockProvider locksA = LockProviders.open("mem://leader-example");
                LockProvider locksB = LockProviders.open("mem://leader-example")) {
            AnnotationConfigApplicationContext a = instance(locksA, store);
            AnnotationConfigApplicationContext b = instance(locksB, store);
            try {
                await().atMost(Duration.ofSeconds(5)).until(() -> store.tokens.size() == 1);
                await().during(Duration.ofMillis(500))
                        .atMost(Duration.ofSeconds(2))
                        .until(() -> store.tokens.size() == 1);
                AnnotationConfigApplicationContext leader = locksA.heldLeases().isEmpty() ? b : a;
                leader.close();
                await().atMost(Duration.ofSeconds(5)).until(() -> store.tokens.size() == 2);
                assertThat(store.tokens).isSorted().doesNotHaveDuplicates();
            } finally {
                a.close();
                b.close();
            }
        }
    }

    @Test
    void readme_javaExamples_equalTheTestedFiles() {
        Path base = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
        assertThat(ReadmeExamples.assertBlocksEqualFiles(base))
                .as("examples found in README.md")
                .isEqualTo(2);
    }
}
