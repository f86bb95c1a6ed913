package io.distlock.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class SpinnerPriorityTest {

    /** Linux's number of the SCHED_IDLE policy, as /proc/.../sched shows it. */
    private static final String SCHED_IDLE = "5";

    @Test
    void lowerToIdle_onLinux_movesTheCallingThreadAloneToSchedIdle() throws Exception {
        AtomicReference<String> answered = new AtomicReference<>();
        AtomicReference<String> policy = new AtomicReference<>();
        Thread t = new Thread(
                () -> {
                    answered.set(SpinnerPriority.lowerToIdle());
                    policy.set(policyOfThisThread());
                },
                "spinner-priority-test");
        t.start();
        t.join(10_000);

        assertThat(answered.get()).as("what lowerToIdle answered").isEqualTo("SCHED_IDLE");
        assertThat(policy.get())
                .as("the thread's policy in /proc/thread-self/sched")
                .isEqualTo(SCHED_IDLE);
        assertThat(policyOfThisThread())
                .as("the policy of the thread that started it (unchanged: only the caller is lowered)")
                .isEqualTo("0");
    }

    private static String policyOfThisThread() {
        try {
            return Files.readAllLines(Path.of("/proc/thread-self/sched")).stream()
                    .filter(l -> l.startsWith("policy"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst()
                    .orElse("?");
        } catch (java.io.IOException e) {
            return "unreadable: " + e;
        }
    }
}
