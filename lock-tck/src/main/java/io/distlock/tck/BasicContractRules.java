package io.distlock.tck;

import static io.distlock.tck.TckSupport.present;
import static io.distlock.tck.TckSupport.since;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Capabilities;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.LockTimeoutException;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The rules of SPEC.md section 1, "Basic contract": acquire, release, {@code withLock}, the {@link
 * Lock} adapter and reentrancy as declared, between two or three clients of one server.
 *
 * <p>Part of {@link LockProviderTck}, which implements every rule group; see {@link RuleGroup}.
 */
public interface BasicContractRules extends RuleGroup {
    /**
     * TCK-1.1: {@code tryAcquire()} on a free lock returns a valid lease for that name, with a
     * remaining validity no longer than the lease time.
     *
     * <p>If this fails, check the driver's try-create primitive (the put-if-absent script, the
     * create call, the row claim) and that the validity deadline is computed from the lease time.
     */
    @Test
    @DisplayName("TCK-1.1 tryAcquire on a free lock returns a valid lease")
    default void tck_1_1_tryAcquire_freeLock_returnsValidLease() {
        TckSupport tck = support();
        LockProvider a = tck.client();
        String name = tck.name("free");
        Lease lease = present(a.lock(name).tryAcquire(), "TCK-1.1: tryAcquire() on a free lock");
        assertThat(lease.lockName()).as("TCK-1.1: lease.lockName()").isEqualTo(name);
        assertThat(lease.isValid()).as("TCK-1.1: a fresh lease is valid").isTrue();
        lease.checkValid();
        assertThat(lease.remainingValidity())
                .as("TCK-1.1: remainingValidity of a fresh lease")
                .isPositive()
                .isLessThanOrEqualTo(LockOptions.DEFAULT_LEASE_TIME);
        assertThat(lease.lost().toCompletableFuture().isDone())
                .as("TCK-1.1: lost() of a fresh lease is not complete")
                .isFalse();
    }

    /**
     * TCK-1.2: {@code tryAcquire()} on a lock held by another client returns empty at once, and the
     * holder keeps its lease.
     *
     * <p>If this fails, check that the try-create primitive is atomic (put-if-absent, not get then
     * set) and that a failed attempt does not touch the holder's key, node or row.
     */
    @Test
    @DisplayName("TCK-1.2 tryAcquire on a lock held by another client returns empty")
    default void tck_1_2_tryAcquire_heldByOtherClient_returnsEmpty() {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        String name = tck.name("held");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-1.2: first tryAcquire");
        long t0 = System.nanoTime();
        Optional<Lease> second = b.lock(name).tryAcquire();
        Duration took = since(t0);
        assertThat(second)
                .as("TCK-1.2: tryAcquire() by client B while client A holds %s", tck.describe(held))
                .isEmpty();
        assertThat(took)
                .as("TCK-1.2: tryAcquire() must not wait for the holder")
                .isLessThan(tck.slack());
        assertThat(held.isValid()).as("TCK-1.2: holder still valid").isTrue();
    }

    /**
     * TCK-1.3: {@code release()} of a valid lease returns {@code true}, makes the lease invalid and
     * frees the lock for another client at once.
     *
     * <p>If this fails, check the driver's delete-if-owner primitive and that it compares the owner
     * value it stored at acquisition.
     */
    @Test
    @DisplayName("TCK-1.3 release of a valid lease returns true and frees the lock")
    default void tck_1_3_release_validLease_returnsTrueAndFreesLock() {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        String name = tck.name("release");
        Lease lease = present(a.lock(name).tryAcquire(), "TCK-1.3: tryAcquire");
        assertThat(lease.release()).as("TCK-1.3: release() of a valid lease").isTrue();
        assertThat(lease.isValid()).as("TCK-1.3: isValid() after release").isFalse();
        assertThat(lease.remainingValidity())
                .as("TCK-1.3: remainingValidity() after release")
                .isZero();
        assertThatThrownBy(lease::checkValid)
                .as("TCK-1.3: checkValid() after release")
                .isInstanceOf(LeaseLostException.class);
        Lease next = present(b.lock(name).tryAcquire(), "TCK-1.3: tryAcquire by another client after release");
        assertThat(next.release()).as("TCK-1.3: release() of the next lease").isTrue();
    }

    /**
     * TCK-1.4: release is idempotent: a second {@code release()} (or {@code close()}) returns
     * {@code false} and does not disturb the next holder.
     *
     * <p>If this fails, check that the lease remembers it was released, and that a repeated release
     * does not send a delete that could hit the next holder's lock.
     */
    @Test
    @DisplayName("TCK-1.4 release is idempotent and never disturbs the next holder")
    default void tck_1_4_release_twice_secondReturnsFalse() {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        LockProvider c = tck.client();
        String name = tck.name("idempotent");
        Lease first = present(a.lock(name).tryAcquire(), "TCK-1.4: tryAcquire");
        assertThat(first.release()).as("TCK-1.4: first release()").isTrue();
        Lease next = present(b.lock(name).tryAcquire(), "TCK-1.4: next holder's tryAcquire");
        assertThat(first.release()).as("TCK-1.4: second release()").isFalse();
        first.close();
        assertThat(c.lock(name).tryAcquire())
                .as(
                        "TCK-1.4: a third client must not acquire after the first lease was released twice: the"
                                + " repeated release disturbed the next holder %s",
                        tck.describe(next))
                .isEmpty();
        assertThat(next.isValid()).as("TCK-1.4: next holder still valid").isTrue();
    }

    /**
     * TCK-1.5: {@code withLock} runs the action while holding the lock and releases it afterwards
     * (also when the action throws); when the lock is held elsewhere it throws {@link
     * LockTimeoutException} without running the action.
     *
     * <p>If this fails, check {@code DistributedLock.withLock} (a provider that overrides it) and
     * {@code tryAcquire(Duration)}.
     */
    @Test
    @DisplayName("TCK-1.5 withLock runs and releases; throws LockTimeoutException when held")
    default void tck_1_5_withLock_runsAndReleases_timesOutWhenHeld() throws Exception {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        String name = tck.name("withlock");
        DistributedLock lockA = a.lock(name);
        DistributedLock lockB = b.lock(name);
        Integer result = lockA.withLock(tck.slack(), lease -> {
            assertThat(lease.isValid()).as("TCK-1.5: lease inside withLock").isTrue();
            assertThat(lockB.tryAcquire())
                    .as("TCK-1.5: other client inside withLock")
                    .isEmpty();
            return 42;
        });
        assertThat(result).as("TCK-1.5: withLock result").isEqualTo(42);
        Lease afterwards = present(lockB.tryAcquire(), "TCK-1.5: tryAcquire after withLock returned (not released?)");

        AtomicBoolean ran = new AtomicBoolean();
        assertThatThrownBy(() -> lockA.withLock(Duration.ofMillis(100), lease -> ran.getAndSet(true)))
                .as("TCK-1.5: withLock while another client holds the lock")
                .isInstanceOf(LockTimeoutException.class);
        assertThat(ran).as("TCK-1.5: action must not run without the lock").isFalse();
        assertThat(afterwards.release()).isTrue();

        assertThatThrownBy(() -> lockA.withLock(tck.slack(), lease -> {
                    throw new IOException("action failed");
                }))
                .as("TCK-1.5: withLock propagates the action's exception")
                .isInstanceOf(IOException.class)
                .hasMessage("action failed");
        present(lockB.tryAcquire(), "TCK-1.5: tryAcquire after the action threw (lock not released?)");
    }

    /**
     * TCK-1.6: the {@link Lock} adapter: {@code tryLock()} acquires, another client's {@code
     * tryLock()} fails, {@code unlock()} by a thread that does not hold it throws {@link
     * IllegalMonitorStateException} and leaves the lock held, {@code unlock()} by the owner frees it.
     *
     * <p>If this fails, check {@code DistributedLock.asLock()} (use {@code io.distlock.spi.LockAdapter}).
     */
    @Test
    @DisplayName("TCK-1.6 asLock adapter: tryLock/unlock, unlock by non-owner thread throws")
    default void tck_1_6_asLock_nonOwnerUnlock_throwsIllegalMonitorState() throws Exception {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        String name = tck.name("aslock");
        Lock lockA = a.lock(name).asLock();
        Lock lockB = b.lock(name).asLock();
        assertThat(lockA.tryLock()).as("TCK-1.6: tryLock() on a free lock").isTrue();
        assertThat(lockB.tryLock()).as("TCK-1.6: other client's tryLock()").isFalse();
        Background<Void> stranger = tck.background("unlock", () -> {
            lockA.unlock();
            return null;
        });
        assertThatThrownBy(() -> stranger.get(tck.slack()))
                .as("TCK-1.6: unlock() by a thread that does not hold the lock")
                .isInstanceOf(IllegalMonitorStateException.class);
        assertThat(lockB.tryLock())
                .as("TCK-1.6: lock still held after the failed unlock")
                .isFalse();
        lockA.unlock();
        assertThat(lockB.tryLock())
                .as("TCK-1.6: tryLock() after the owner's unlock")
                .isTrue();
        lockB.unlock();
        assertThatThrownBy(lockB::unlock)
                .as("TCK-1.6: unlock() of a lock not held")
                .isInstanceOf(IllegalMonitorStateException.class);
    }

    /**
     * TCK-1.7: reentrancy, both ways. Declared {@code reentrant=false}: the same thread's second
     * {@code tryAcquire()} on the same client returns empty. Declared {@code reentrant=true}: it
     * returns a nested lease, and the lock stays held until the outer lease is released.
     *
     * <p>If this fails, check {@link Capabilities#reentrant()}: a backend that is not reentrant must
     * not let a client acquire a lock it holds (unique owner value per acquisition, not per client),
     * and one that says it is must count nested holds.
     */
    @Test
    @DisplayName("TCK-1.7 reentrancy as declared (both ways)")
    default void tck_1_7_reentrancy_asDeclared() {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        String name = tck.name("reentrant");
        Lease outer = present(a.lock(name).tryAcquire(), "TCK-1.7: outer tryAcquire");
        Optional<Lease> inner = a.lock(name).tryAcquire();
        if (!a.capabilities().reentrant()) {
            assertThat(inner)
                    .as("TCK-1.7: capabilities say reentrant=false, but the holding thread acquired the lock again"
                            + " on the same client")
                    .isEmpty();
            assertThat(outer.isValid()).as("TCK-1.7: outer lease still valid").isTrue();
            return;
        }
        Lease nested = present(inner, "TCK-1.7: capabilities say reentrant=true: nested tryAcquire");
        assertThat(nested.release()).as("TCK-1.7: release of the nested lease").isTrue();
        assertThat(b.lock(name).tryAcquire())
                .as("TCK-1.7: lock must stay held while the outer lease is held")
                .isEmpty();
        assertThat(outer.release()).as("TCK-1.7: release of the outer lease").isTrue();
        present(b.lock(name).tryAcquire(), "TCK-1.7: tryAcquire after the outer release");
    }

    /**
     * TCK-1.8: a lease's validity is counted from before the request that acquired (or extended) it,
     * never from the reply: on a client whose replies arrive {@link TckSupport#REPLY_DELAY} late
     * ({@code fixture.newClientWithReplyDelay}), the remaining validity right after {@code
     * tryAcquire()} is at most the lease time, less the safety margin, less the delay; the same after
     * an {@code extend} that took at least the delay (an extension kept by the client alone sends no
     * request and is not bound). This is the safety rule of every lease-based lock: the server may
     * have started the lease's time to live as soon as it received the request. Needs the hook.
     *
     * <p>If this fails, check where the driver reads the ticker for {@code ctx.validUntil(t)}: {@code
     * t} must be read before the request is sent (acquisition, renewal, extension), not when the
     * reply has arrived, and a session backend must count from the keepalive request, not its reply.
     */
    @Test
    @DisplayName("TCK-1.8 validity is counted from before the request, not from the reply")
    default void tck_1_8_validity_slowReply_countedFromBeforeTheRequest() {
        TckSupport tck = support();
        Duration delay = TckSupport.REPLY_DELAY;
        LockOptions options = LockOptions.builder().autoRenew(false).build();
        LockProvider slow = tck.replyDelayClient(options, delay);
        String name = tck.name("slow-reply");
        Lease lease = present(slow.lock(name).tryAcquire(), "TCK-1.8: tryAcquire() with replies " + delay + " late");
        Duration remaining = lease.remainingValidity();
        Duration bound = options.leaseTime().minus(options.safetyMargin()).minus(delay);
        assertThat(remaining)
                .as(
                        "TCK-1.8: remaining validity right after an acquisition whose reply came %s late (lease %s,"
                                + " safety margin %s): counted from the reply, not from before the request",
                        delay, options.leaseTime(), options.safetyMargin())
                .isLessThanOrEqualTo(bound);
        Duration extension = options.leaseTime().dividedBy(2);
        long t0 = System.nanoTime();
        lease.extend(extension);
        Duration took = since(t0);
        Duration extended = lease.remainingValidity();
        Duration margin = Duration.ofNanos((long) (extension.toNanos() * options.clockDriftFactor()))
                .plus(options.minimumSafetyMargin());
        if (took.compareTo(delay) >= 0) {
            assertThat(extended)
                    .as(
                            "TCK-1.8: remaining validity right after extend(%s), whose reply came %s late (safety"
                                    + " margin %s): counted from the reply, not from before the request",
                            extension, delay, margin)
                    .isLessThanOrEqualTo(extension.minus(margin).minus(delay));
        }
        assertThat(lease.release()).as("TCK-1.8: release()").isTrue();
    }
}
