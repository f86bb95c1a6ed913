package io.distlock.compare;

import io.distlock.Capabilities;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;

/**
 * One contestant of a comparison: a way to open independent clients, plus what is known about the
 * server it talks to.
 *
 * @param name label in tables and charts, for example {@code "redis"} or {@code "redisson RLock"}
 * @param backend the backend family, for example {@code "redis"}; peers share it with ours
 * @param peer {@code true} for a library other than distlock (marked as such in reports)
 * @param clients opens a new independent client
 * @param floor one raw request to the server (PING, a no-op read), the round-trip floor; may be null
 * @param serverRequests total requests the server has served so far, read from the server's own
 *     statistics, for counting round trips per operation; may be null. It must not count its own
 *     reads (subtract them), so that two readings differ only by the traffic in between
 * @param floorRequestsPerOperation how many round trips the protocol needs for one acquire+release
 *     (the "floor" multiplier), or 0 if unknown
 * @param serverVersion server version string for the report, or null
 * @param capabilities what the backend declares (for the guarantee matrix); null for peers
 * @param extraFloors additional floor probes by metric name (see {@link #withExtraFloor}); empty if
 *     none
 * @param handoffFloor one sample of the hand-off floor, in nanoseconds, given the idle time
 *     before the delete (see {@link #withHandoffFloor}); may be null
 * @param serverConnections how many connections the comparison's clients have open to the server
 *     now (see {@link #withServerConnections}); may be null
 * @param delayed the same contestant with every connection through a delay line (see {@link
 *     #withDelayed}); may be null
 * @param limits the largest scale points the target can run, by scenario, with the reason (see
 *     {@link #withLimit}); empty if none
 */
public record ComparisonTarget(
        String name,
        String backend,
        boolean peer,
        Supplier<LockClient> clients,
        Runnable floor,
        Supplier<OptionalLong> serverRequests,
        int floorRequestsPerOperation,
        String serverVersion,
        Capabilities capabilities,
        Map<String, Runnable> extraFloors,
        LongUnaryOperator handoffFloor,
        Supplier<OptionalLong> serverConnections,
        Delayed delayed,
        Map<Scenario, Limit> limits) {

    public ComparisonTarget {
        Objects.requireNonNull(name, "name must not be null");
        Objects.requireNonNull(backend, "backend must not be null");
        Objects.requireNonNull(clients, "clients must not be null");
        extraFloors = extraFloors == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(extraFloors));
        limits = limits == null ? Map.of() : Map.copyOf(limits);
    }

    /** A target without connection counts, delay line or scale limits. */
    public ComparisonTarget(
            String name,
            String backend,
            boolean peer,
            Supplier<LockClient> clients,
            Runnable floor,
            Supplier<OptionalLong> serverRequests,
            int floorRequestsPerOperation,
            String serverVersion,
            Capabilities capabilities,
            Map<String, Runnable> extraFloors,
            LongUnaryOperator handoffFloor) {
        this(
                name,
                backend,
                peer,
                clients,
                floor,
                serverRequests,
                floorRequestsPerOperation,
                serverVersion,
                capabilities,
                extraFloors,
                handoffFloor,
                null,
                null,
                Map.of());
    }

    /**
     * The same contestant with its clients and its floor probe connected through {@code line}.
     *
     * @param target the delayed variant: the same name and backend, clients and floor through the line
     * @param line the delay line the comparison sets
     */
    public record Delayed(ComparisonTarget target, DelayLine line) {
        public Delayed {
            Objects.requireNonNull(target, "target must not be null");
            Objects.requireNonNull(line, "line must not be null");
        }
    }

    /**
     * The largest point of a scale curve a target can run, and why: a point above it is recorded as
     * not measured, with the reason.
     *
     * @param max the largest point it can run
     * @param reason why, for example "one connection per held lock; the server allows 300"
     */
    public record Limit(int max, String reason) {
        public Limit {
            Objects.requireNonNull(reason, "reason must not be null");
        }
    }

    /** A target with only a client factory. */
    public static ComparisonTarget of(String name, String backend, Supplier<LockClient> clients) {
        return new ComparisonTarget(name, backend, false, clients, null, null, 0, null, null, Map.of(), null);
    }

    public ComparisonTarget withFloor(Runnable floor, int requestsPerOperation) {
        return with(c -> {
            c.floor = floor;
            c.floorRequestsPerOperation = requestsPerOperation;
        });
    }

    public ComparisonTarget withServerRequests(Supplier<OptionalLong> counter) {
        return with(c -> c.serverRequests = counter);
    }

    public ComparisonTarget withServerVersion(String version) {
        return with(c -> c.serverVersion = version);
    }

    /** This target marked as a peer (another library), for side-by-side rows. */
    public ComparisonTarget asPeer() {
        return with(c -> c.peer = true);
    }

    public ComparisonTarget withCapabilities(Capabilities caps) {
        return with(c -> c.capabilities = caps);
    }

    /**
     * This target with an additional floor probe, run interleaved with the uncontended operations
     * like the main floor; its p50 is reported as {@code <metric>_p50_us} of the uncontended
     * scenario, the median over the interleaved blocks of each operation block's p50 ÷ the probe's
     * adjacent block's as {@code over_<metric>_by_blocks}, and both are listed under the Markdown
     * table. For floors that are not a no-op read: the cheapest honest operation of a backend
     * (ZooKeeper: one create + one delete), or the exact requests a lock sends with no client code
     * around them, which splits "× floor" into what the server spends on those requests and what
     * the client adds.
     */
    public ComparisonTarget withExtraFloor(String metric, Runnable probe) {
        Objects.requireNonNull(metric, "metric must not be null");
        Objects.requireNonNull(probe, "probe must not be null");
        return with(c -> {
            Map<String, Runnable> floors = new LinkedHashMap<>(extraFloors);
            floors.put(metric, probe);
            c.extraFloors = floors;
        });
    }

    /**
     * This target with a hand-off floor probe: each call returns one sample, in nanoseconds, of the
     * least a hand-off can cost on this server — the time from one client's raw release signal (a
     * delete of a watched key or node, or a Redis {@code PUBLISH}) to another client's notification,
     * plus one raw read round trip by the notified client (what a waiter that is told of the release
     * and confirms once needs). The
     * probe's argument is how long it stays idle (parked) between arming the watch and the delete,
     * in nanoseconds: 0 for back to back, or the scenario's {@link
     * ComparisonSettings#holdBeforeRelease()}, so that the floor pays what the hand-offs pay for
     * CPUs that went idle during the hold (on a VM whose idle vCPUs halt, a wake-up after 2 ms
     * idle costs far more than one after none). The probe sets up its key and watch itself,
     * outside the time it returns. Run next to each hand-off scenario (before and after it, as many
     * samples of each kind as hand-offs); the p50s are reported as {@code handoff_floor_p50_us}
     * (back to back) and {@code handoff_floor_idle_p50_us} (after the idle) of that scenario and
     * listed under the Markdown table.
     */
    public ComparisonTarget withHandoffFloor(LongUnaryOperator probe) {
        Objects.requireNonNull(probe, "probe must not be null");
        return with(c -> c.handoffFloor = probe);
    }

    /**
     * This target with a count of the connections to its server that are open now (the comparison's
     * own probes included: the scale curves report the difference their clients make), for the
     * scale curves' "connections" figures.
     */
    public ComparisonTarget withServerConnections(Supplier<OptionalLong> connections) {
        return with(c -> c.serverConnections = connections);
    }

    /**
     * This target with a variant whose clients and floor probe talk to the server through {@code
     * line}: the comparison runs {@link ComparisonSettings#DELAY_SCENARIOS} on it at each of {@link
     * ComparisonSettings#oneWayDelays()} above zero. The variant should count the server's requests
     * as this target does (directly, not through the line).
     */
    public ComparisonTarget withDelayed(ComparisonTarget variant, DelayLine line) {
        Delayed d = new Delayed(variant, line);
        return with(c -> c.delayed = d);
    }

    /**
     * This target able to run {@code scenario}'s scale curve only up to {@code max} (clients, held
     * locks or waiters), because of {@code reason}; larger points are reported as not measured, with
     * the reason.
     */
    public ComparisonTarget withLimit(Scenario scenario, int max, String reason) {
        Objects.requireNonNull(scenario, "scenario must not be null");
        Limit limit = new Limit(max, reason);
        return with(c -> {
            Map<Scenario, Limit> l = new java.util.EnumMap<>(Scenario.class);
            l.putAll(limits);
            l.put(scenario, limit);
            c.limits = l;
        });
    }

    OptionalLong requestsNow() {
        return serverRequests == null ? OptionalLong.empty() : serverRequests.get();
    }

    OptionalLong connectionsNow() {
        return serverConnections == null ? OptionalLong.empty() : serverConnections.get();
    }

    Optional<Runnable> floorProbe() {
        return Optional.ofNullable(floor);
    }

    /** A copy of this target with what {@code change} sets. */
    private ComparisonTarget with(java.util.function.Consumer<Copy> change) {
        Copy c = new Copy(this);
        change.accept(c);
        return new ComparisonTarget(
                name,
                backend,
                c.peer,
                clients,
                c.floor,
                c.serverRequests,
                c.floorRequestsPerOperation,
                c.serverVersion,
                c.capabilities,
                c.extraFloors,
                c.handoffFloor,
                c.serverConnections,
                c.delayed,
                c.limits);
    }

    /** The mutable copy {@link #with} changes. */
    private static final class Copy {
        boolean peer;
        Runnable floor;
        Supplier<OptionalLong> serverRequests;
        int floorRequestsPerOperation;
        String serverVersion;
        Capabilities capabilities;
        Map<String, Runnable> extraFloors;
        LongUnaryOperator handoffFloor;
        Supplier<OptionalLong> serverConnections;
        Delayed delayed;
        Map<Scenario, Limit> limits;

        Copy(ComparisonTarget t) {
            peer = t.peer;
            floor = t.floor;
            serverRequests = t.serverRequests;
            floorRequestsPerOperation = t.floorRequestsPerOperation;
            serverVersion = t.serverVersion;
            capabilities = t.capabilities;
            extraFloors = t.extraFloors;
            handoffFloor = t.handoffFloor;
            serverConnections = t.serverConnections;
            delayed = t.delayed;
            limits = t.limits;
        }
    }
}
