package io.distlock.tck;

import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.spi.LockEngine;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;

/** Fixture over a {@link ToyLockServer} that requires a password, with the given bugs switched on. */
final class ToyTckFixture implements TckFixture {
    private final String password = UUID.randomUUID().toString();
    private final ToyLockServer server;
    private final Set<ToyDriver.Bug> bugs;

    ToyTckFixture(Set<ToyDriver.Bug> bugs) {
        this.bugs = bugs.isEmpty() ? EnumSet.noneOf(ToyDriver.Bug.class) : EnumSet.copyOf(bugs);
        this.server = new ToyLockServer(password, this.bugs.contains(ToyDriver.Bug.TOKENS_RESET_ON_RESTART));
    }

    @Override
    public String backend() {
        if (bugs.isEmpty()) {
            return "toy";
        }
        StringBuilder sb = new StringBuilder("toy-broken");
        for (ToyDriver.Bug b : bugs) {
            sb.append('-').append(b.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        }
        return sb.toString();
    }

    @Override
    public LockProvider newClient(LockOptions options) {
        return client(password, options);
    }

    @Override
    public LockProvider newClientWithWrongCredentials(LockOptions options) {
        return client("not-" + password, options);
    }

    @Override
    public LockProvider newClientWithReplyDelay(LockOptions options, Duration delay) {
        return client(password, options, delay);
    }

    @Override
    public long serverRequestCount() {
        return server.requests();
    }

    private LockProvider client(String presented, LockOptions options) {
        return client(presented, options, Duration.ZERO);
    }

    private LockProvider client(String presented, LockOptions options, Duration replyDelay) {
        LockEngine engine = LockEngine.create(new ToyDriver(server, presented, bugs, replyDelay), options);
        return bugs.contains(ToyDriver.Bug.VALID_AFTER_LOST)
                ? new ValidAfterLostProvider(engine, options.leaseTime())
                : engine;
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
    public void crashClient(LockProvider client) {
        LockProvider p = client instanceof ValidAfterLostProvider v ? v.delegate : client;
        ((LockEngine) p).abandon();
    }
}
