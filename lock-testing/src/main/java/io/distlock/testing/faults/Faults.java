package io.distlock.testing.faults;

import io.distlock.testing.servers.TestServer;
import java.time.Duration;

/**
 * Bounded faults that undo themselves on close. Each returns a {@link Fault}; use it in
 * try-with-resources.
 *
 * <pre>{@code
 * try (Fault f = Faults.blackhole(proxy, TcpProxy.Direction.BOTH, Duration.ofSeconds(3))) {
 *     ... // the client behind the proxy is partitioned
 * }
 * }</pre>
 */
public final class Faults {
    private Faults() {}

    /** SIGSTOP on {@code server}; SIGCONT on close or after {@code maxDuration}. */
    public static Fault pause(TestServer server, Duration maxDuration) {
        return Fault.inject("pause-" + server.port(), server::pause, server::resume, maxDuration);
    }

    /**
     * SIGKILL on {@code server}; on close or after {@code maxDuration} it is restarted on the same
     * port, with its data if {@code keepData}.
     */
    public static Fault kill(TestServer server, boolean keepData, Duration maxDuration) {
        return Fault.inject("kill-" + server.port(), server::kill, () -> server.restart(keepData), maxDuration);
    }

    /** SIGSTOP on the child JVM (it stops renewing and answering); SIGCONT on close. */
    public static Fault pause(ChildJvmLockClient child, Duration maxDuration) {
        return Fault.inject("pause-child-" + child.pid(), child::pause, child::resume, maxDuration);
    }

    /** Stops forwarding in {@code direction}; resumes on close. */
    public static Fault blackhole(TcpProxy proxy, TcpProxy.Direction direction, Duration maxDuration) {
        return Fault.inject("blackhole-" + proxy.port(), () -> proxy.blackhole(direction), proxy::resume, maxDuration);
    }

    /** Adds {@code latency} in {@code direction}; removes it on close. */
    public static Fault latency(TcpProxy proxy, TcpProxy.Direction direction, Duration latency, Duration maxDuration) {
        return Fault.inject(
                "latency-" + proxy.port(),
                () -> proxy.setLatency(direction, latency),
                () -> proxy.setLatency(direction, Duration.ZERO),
                maxDuration);
    }
}
