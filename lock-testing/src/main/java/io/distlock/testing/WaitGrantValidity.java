package io.distlock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What a backend whose waiters block in one server statement must do with the validity of a lock
 * that statement granted (the SQL backends): count it from when the wait statement was <em>sent</em>,
 * because the server starts the lease when it answers and the client only knows that this came after
 * the send; and end one wait statement within half the lease, so that a lock granted after a long
 * wait still has about half a lease left (the waiter then tries and waits again).
 */
public final class WaitGrantValidity {
    private WaitGrantValidity() {}

    /**
     * {@code holder} holds {@code name} while {@code waiter} waits for it, first for 600 ms (less than
     * the lease), then for two leases; after each release the waiter's lease must have, respectively,
     * less than the lease minus 500 ms left (counted from when its wait was sent) and more than half
     * the lease minus 200 ms (its last wait statement was sent at most half a lease before the grant).
     * Both providers lease for {@code leaseTime}, which must be at least 1 s.
     *
     * @throws AssertionError naming the check that failed
     */
    public static void check(LockProvider holder, LockProvider waiter, String name, Duration leaseTime)
            throws Exception {
        for (Duration held : List.of(Duration.ofMillis(600), leaseTime.multipliedBy(2))) {
            Lease first = holder.lock(name).acquire();
            CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return waiter.lock(name).tryAcquire(Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            await().pollDelay(held).until(() -> !waiting.isDone());
            assertThat(first.release()).isTrue();
            Lease granted = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
            Duration left = granted.remainingValidity();
            if (held.compareTo(leaseTime) < 0) {
                assertThat(left)
                        .as("counted from when the wait was sent, %s before the grant", held)
                        .isLessThan(leaseTime.minus(Duration.ofMillis(500)));
            } else {
                assertThat(left)
                        .as("after a wait of %s, the last wait statement was sent at most half a lease ago", held)
                        .isGreaterThan(leaseTime.dividedBy(2).minus(Duration.ofMillis(200)));
            }
            assertThat(granted.release()).isTrue();
        }
    }
}
