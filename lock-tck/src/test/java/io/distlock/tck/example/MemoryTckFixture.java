package io.distlock.tck.example;

import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.memory.MemoryLockProvider;
import io.distlock.memory.MemoryLockServer;
import io.distlock.tck.TckFixture;
import io.distlock.tck.UnsupportedHookException;
import java.time.Duration;

/** TCK fixture for the in-JVM provider: every client is a provider on one shared server. */
public final class MemoryTckFixture implements TckFixture {
    private final MemoryLockServer server = MemoryLockServer.create();

    @Override
    public String backend() {
        return "mem";
    }

    @Override
    public LockProvider newClient(LockOptions options) {
        return MemoryLockProvider.builder().server(server).options(options).build();
    }

    @Override
    public LockProvider newClientWithReplyDelay(LockOptions options, Duration delay) {
        return MemoryLockProvider.builder()
                .server(server)
                .options(options)
                .replyDelay(delay)
                .build();
    }

    @Override
    public long serverRequestCount() {
        return server.requests();
    }

    @Override
    public void expireLease(String lockName) {
        server.expire(lockName);
    }

    @Override
    public void stopServer() {
        server.setAvailable(false);
    }

    @Override
    public void startServer() {
        server.setAvailable(true);
    }

    @Override
    public LockProvider newClientWithWrongCredentials(LockOptions options) {
        throw new UnsupportedHookException("newClientWithWrongCredentials", "the in-JVM provider has no credentials");
    }
}
