package io.distlock.tck;

import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.ReentrantLockProvider;
import io.distlock.memory.MemoryLockProvider;
import io.distlock.memory.MemoryLockServer;

/**
 * The TCK against {@link ReentrantLockProvider} over the in-JVM provider: the decorator declares
 * {@code reentrant=true}, so TCK-1.7 checks the other direction of that capability.
 */
class ReentrantMemoryLockProviderTckTest extends LockProviderTck {

    @Override
    protected TckFixture createFixture() {
        return new TckFixture() {
            private final MemoryLockServer server = MemoryLockServer.create();

            @Override
            public String backend() {
                return "mem-reentrant";
            }

            @Override
            public LockProvider newClient(LockOptions options) {
                MemoryLockProvider p = MemoryLockProvider.builder()
                        .server(server)
                        .options(options)
                        .build();
                // crashClient's default reaches the wrapped provider's FaultHooks through unwrap
                return ReentrantLockProvider.wrap(p);
            }

            @Override
            public void expireLease(String lockName) {
                server.expire(lockName);
            }
        };
    }
}
