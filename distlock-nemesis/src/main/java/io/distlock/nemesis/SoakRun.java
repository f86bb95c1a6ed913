package io.distlock.nemesis;

import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The soak profile's part of one backend's {@link Nemesis} run: which faults it cycles, which client
 * JVMs {@code kill-holder} may kill, the per-minute {@link SoakSampler}, and the {@link SoakChecker}'s
 * verdict at the end.
 *
 * <p>The soak cycles the backend's repeatable faults that keep the data the tokens are counted in: a
 * fault that loses it (a server restarted empty, Redlock nodes restarted, a Sentinel failover to a
 * lagging replica) breaks every backend's fencing, which the guarantee table shows, and would leave "no
 * write out of token order" nothing to check for the rest of the hour. The first {@link
 * Profile.Soak#keptClients()} client JVMs run the whole time; {@code kill-holder} kills the others
 * (and their replacements), so the kept ones' heap and threads can be compared from the first minutes
 * to the last.
 */
final class SoakRun {
    private final Profile profile;
    private Set<String> kept = Set.of();
    private SoakSampler sampler;
    private SoakResults.Backend result;

    SoakRun(Profile profile) {
        this.profile = profile;
    }

    /** The faults the soak cycles, of the backend's {@code faults}. */
    List<FaultKind> cycled(Topology topology, List<FaultKind> faults) {
        return faults.stream()
                .filter(topology::repeatable)
                .filter(k -> !k.losesData())
                .toList();
    }

    /** Whether {@code kill-holder} may kill {@code c}. */
    boolean killable(ClientProcess c) {
        return !kept.contains(c.id());
    }

    /**
     * Starts sampling every minute from {@code start}: keeps the first {@link
     * Profile.Soak#keptClients()} of {@code initial} for the whole run.
     */
    void start(Topology topology, List<ClientProcess> initial, Supplier<List<ClientProcess>> clients, long start) {
        kept = initial.stream()
                .sorted(Comparator.comparingInt(c -> Integer.parseInt(c.id().substring(1))))
                .limit(profile.soak().keptClients())
                .map(ClientProcess::id)
                .collect(Collectors.toUnmodifiableSet());
        sampler = new SoakSampler(
                topology, clients, start, profile.soak().sampleEvery().toNanos());
        clients.get().forEach(this::started);
        sampler.start();
    }

    /** Routes a new client's samples to the sampler. */
    void started(ClientProcess c) {
        if (sampler != null) {
            c.onSample(sampler::add);
        }
    }

    /** Stops sampling: the samples of every minute that has ended are in. */
    void stop(List<ClientProcess> running) throws InterruptedException {
        sampler.close();
        int last = sampler.minutes() - 1;
        // the kept clients answer the last minute's sample on their own (a full GC may take a moment)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (last >= 0 && System.nanoTime() - deadline < 0) {
            Set<String> answered = sampler.clientSamples().stream()
                    .filter(s -> s.minute() == last)
                    .map(SoakResults.ClientSample::client)
                    .collect(Collectors.toSet());
            if (running.stream().filter(ClientProcess::isAlive).allMatch(c -> answered.contains(c.id()))) {
                break;
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    /** Stops sampling if the run ended early (idempotent). */
    void close() {
        if (sampler != null) {
            sampler.close();
        }
    }

    /** Checks the run from the nemesis checker's input and verdict. */
    void check(Checker.Input nemesis, Results.Backend checked, long start, List<FaultKind> cycled) {
        result = SoakChecker.check(new SoakChecker.Input(
                nemesis,
                checked,
                start,
                profile.soak().sampleEvery().toNanos(),
                sampler.minutes(),
                kept.stream().sorted().toList(),
                profile.clients(),
                profile.soak().threadsPerClient(),
                cycled.stream().map(FaultKind::id).distinct().collect(Collectors.joining(", ")),
                sampler.connectionsMetric(),
                sampler.clientSamples(),
                sampler.serverSamples()));
    }

    /** The soak verdict, once {@link #check} ran. */
    SoakResults.Backend result() {
        return result;
    }
}
