package io.distlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.memory.MemoryLockProvider;
import io.distlock.memory.MemoryLockServer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

class ReentrantLockProviderTest {

    @Test
    void sameThread_reentersWithoutServerCall_andReleasesOnOutermost() throws Exception {
        MemoryLockServer server = MemoryLockServer.create();
        try (ReentrantLockProvider p = ReentrantLockProvider.wrap(
                        MemoryLockProvider.builder().server(server).build());
                MemoryLockProvider other =
                        MemoryLockProvider.builder().server(server).build()) {
            assertThat(p.capabilities().reentrant()).isTrue();
            Lease outer = p.lock("r").acquire();
            long requests = server.requests();
            Lease inner = p.lock("r").tryAcquire().orElseThrow();
            assertThat(server.requests()).isEqualTo(requests);
            assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
            assertThat(inner.release()).isTrue();
            assertThat(inner.release()).isFalse();
            assertThat(other.lock("r").tryAcquire())
                    .as("still held after inner release")
                    .isEmpty();
            assertThat(outer.release()).isTrue();
            assertThat(other.lock("r").tryAcquire()).isPresent();
        }
    }

    @Test
    void otherThread_isNotReentrant() throws Exception {
        try (ReentrantLockProvider p = ReentrantLockProvider.wrap(MemoryLockProvider.create())) {
            p.lock("t").acquire();
            boolean got = CompletableFuture.supplyAsync(
                            () -> p.lock("t").tryAcquire().isPresent())
                    .get(5, TimeUnit.SECONDS);
            assertThat(got).isFalse();
        }
    }

    @Test
    void lockAdapter_reentrantViewCountsHolds() throws Exception {
        try (ReentrantLockProvider p = ReentrantLockProvider.wrap(MemoryLockProvider.create())) {
            Lock lock = p.lock("a").asLock();
            lock.lock();
            lock.lock();
            lock.unlock();
            assertThat(CompletableFuture.supplyAsync(lock::tryLock).get(5, TimeUnit.SECONDS))
                    .isFalse();
            lock.unlock();
            assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        }
    }

    @Test
    void plainAdapter_secondLockBySameThread_failsClearly() throws Exception {
        try (MemoryLockProvider p = MemoryLockProvider.create()) {
            Lock lock = p.lock("a").asLock();
            assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(lock::lock)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not reentrant")
                    .hasMessageContaining("ReentrantLockProvider");
            Throwable fromOther = CompletableFuture.supplyAsync(() -> {
                        try {
                            lock.unlock();
                            return null;
                        } catch (Throwable t) {
                            return t;
                        }
                    })
                    .get(5, TimeUnit.SECONDS);
            assertThat(fromOther).isInstanceOf(IllegalMonitorStateException.class);
            lock.unlock();
            assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
        }
    }
}
