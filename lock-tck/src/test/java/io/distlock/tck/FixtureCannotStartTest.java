package io.distlock.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * A backend whose server cannot start must FAIL its TCK run, never skip it: only missing
 * capabilities and unsupported hooks skip, and a missing server is neither.
 */
class FixtureCannotStartTest {

    /** Run only through the Launcher below (nested, so surefire does not run it on its own). */
    static final class ServerMissingTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            // what a fixture whose launcher finds no binary throws (the test kit's ServerStartException is one)
            throw new IllegalStateException("redis-server not found: install the Debian package redis-server");
        }
    }

    @Test
    void tckRun_fixtureCannotStartItsServer_failsAndSkipsNothing() {
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(
                LauncherDiscoveryRequestBuilder.request()
                        .selectors(selectClass(ServerMissingTck.class))
                        .build(),
                listener);
        TestExecutionSummary s = listener.getSummary();
        assertThat(s.getTotalFailureCount()).as("failures").isPositive();
        assertThat(s.getTestsSkippedCount()).as("skipped rules").isZero();
        assertThat(s.getTestsAbortedCount()).as("aborted rules").isZero();
        assertThat(s.getTestsSucceededCount()).as("passed rules").isZero();
        assertThat(s.getFailures())
                .anySatisfy(f -> assertThat(f.getException()).hasMessageContaining("install the Debian package"));
    }
}
