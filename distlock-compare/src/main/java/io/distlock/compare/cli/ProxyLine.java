package io.distlock.compare.cli;

import io.distlock.compare.DelayLine;
import io.distlock.testing.faults.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A backend's delay line: one {@link TcpProxy} in front of each of its servers, started on this
 * machine. Every client of the backend's delayed targets connects to the proxies instead of the
 * servers; the comparison sets the one-way delay of all of them at once.
 */
final class ProxyLine implements DelayLine, AutoCloseable {
    private final List<TcpProxy> proxies = new ArrayList<>();

    /** Proxies in front of {@code address}'s nodes, no delay set. */
    ProxyLine(ServerAddress address) {
        try {
            for (int i = 0; i < address.nodes().size(); i++) {
                proxies.add(TcpProxy.start(address.host(i), address.port(i)));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** {@code address} with its nodes replaced by the proxies in front of them. */
    ServerAddress route(ServerAddress address) {
        return address.at(proxies.stream().map(TcpProxy::address).toList());
    }

    @Override
    public void setOneWayDelay(Duration oneWay) {
        for (TcpProxy p : proxies) {
            p.setLatency(oneWay);
            p.resetLateness();
        }
    }

    /** The largest median lateness of the proxies (one per server). */
    @Override
    public Optional<Duration> medianLateness() {
        return proxies.stream()
                .filter(p -> p.lateness().chunks() > 0)
                .map(p -> p.lateness().p50())
                .max(Duration::compareTo);
    }

    /** The round trips of every proxy (one per server) so far. */
    @Override
    public OptionalLong roundTrips() {
        return OptionalLong.of(proxies.stream().mapToLong(TcpProxy::roundTrips).sum());
    }

    @Override
    public void close() {
        proxies.forEach(TcpProxy::close);
    }
}
