package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Deadline arithmetic on ticker readings: compared by difference; {@link Deadlines#NEVER} never passes. */
class DeadlinesTest {
    private final AtomicLong now = new AtomicLong();
    private final Ticker ticker = now::get;

    @Test
    void passed_isTrueFromTheDeadlineItself_onwards() {
        now.set(1_000);
        assertThat(Deadlines.passed(ticker, 1_001)).isFalse();
        assertThat(Deadlines.passed(ticker, 1_000)).as("at the deadline").isTrue();
        assertThat(Deadlines.passed(ticker, 999)).isTrue();
        assertThat(Deadlines.passed(ticker, Deadlines.NEVER)).isFalse();
    }

    @Test
    void passed_andRemaining_acrossTheTickersWrapAround() {
        now.set(Long.MAX_VALUE - 5);
        long deadline = Long.MAX_VALUE - 5 + 10; // wraps to a negative reading
        assertThat(Deadlines.passed(ticker, deadline)).isFalse();
        assertThat(Deadlines.remaining(ticker, deadline)).isEqualTo(10);
        now.addAndGet(10);
        assertThat(Deadlines.passed(ticker, deadline)).isTrue();
        assertThat(Deadlines.remaining(ticker, deadline)).isZero();
    }

    @Test
    void after_addsTheDuration_andSaturatesAtNever() {
        assertThat(Deadlines.after(100, Duration.ofNanos(50))).isEqualTo(150);
        assertThat(Deadlines.after(100, 50)).isEqualTo(150);
        assertThat(Deadlines.after(Long.MAX_VALUE - 10, 100)).isEqualTo(Deadlines.NEVER);
        assertThat(Deadlines.remaining(ticker, Deadlines.NEVER)).isEqualTo(Long.MAX_VALUE);
    }
}
