package io.distlock.compare.cli;

import io.distlock.LockOptions;
import io.distlock.compare.ComparisonTarget;
import io.distlock.compare.LockClient;
import io.distlock.memory.MemoryLockProvider;
import io.distlock.memory.MemoryLockServer;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/** The in-JVM reference provider: no network, so it shows the engine's own overhead. */
final class MemBackend implements Backend {
    private MemoryLockServer server;

    @Override
    public String name() {
        return "mem";
    }

    /** In this JVM: never existing servers, and no network to delay. */
    @Override
    public void start(ServerAddress existing, RunPrefix prefix, boolean delayLine) {
        server = MemoryLockServer.create();
    }

    @Override
    public List<ComparisonTarget> targets(boolean peers) {
        MemoryLockServer s = server;
        LockOptions options =
                LockOptions.builder().leaseTime(Duration.ofSeconds(3)).build();
        return List.of(ComparisonTarget.of(
                        "mem",
                        "mem",
                        () -> LockClient.of(MemoryLockProvider.builder()
                                .server(s)
                                .options(options)
                                .build()))
                .withFloor(null, 2)
                .withServerRequests(() -> OptionalLong.of(s.requests()))
                .withServerVersion("in-JVM")
                .withCapabilities(MemoryLockProvider.create().capabilities()));
    }

    @Override
    public String serverDescription() {
        return "in-JVM MemoryLockServer";
    }

    @Override
    public String cleanUp() {
        return "nothing on a server: the in-JVM server ends with the run";
    }

    @Override
    public void close() {}
}
