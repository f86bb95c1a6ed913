package io.distlock.compare;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Runs the same scenarios through several lock backends and peers, side by side, and returns the
 * figures as objects. Use it from the command line ({@code ./distlock compare}) or from a JUnit test
 * to hold your own backend against ours:
 *
 * <pre>{@code
 * ComparisonResult r = Comparison.of(ComparisonSettings.quick())
 *         .target(ComparisonTarget.of("mine", "mine", () -> LockClient.of(myProvider())))
 *         .target(ComparisonTarget.of("mem", "mem", () -> LockClient.of(MemoryLockProvider.create())))
 *         .run();
 * assertThat(r.value("mine", Scenario.HANDOFF_1, "p50_us")).isLessThan(2 * r.value("mem", Scenario.HANDOFF_1, "p50_us"));
 * }</pre>
 *
 * Targets run one after another (never concurrently, so they do not disturb each other), except
 * that the uncontended scenario measures every target of one backend (ours and the peers on the
 * same server) in alternating blocks, so that their latencies are taken under the same load. Every
 * scenario of a target uses fresh clients, closed before the next scenario.
 */
public final class Comparison {
    private final ComparisonSettings settings;
    private final List<ComparisonTarget> targets = new ArrayList<>();
    private Consumer<String> progress = s -> {};

    private Comparison(ComparisonSettings settings) {
        this.settings = Objects.requireNonNull(settings, "settings must not be null");
    }

    public static Comparison of(ComparisonSettings settings) {
        return new Comparison(settings);
    }

    public Comparison target(ComparisonTarget target) {
        targets.add(Objects.requireNonNull(target, "target must not be null"));
        return this;
    }

    /** Receives one line per step ("redis: contended throughput (3/7)"). */
    public Comparison progress(Consumer<String> progress) {
        this.progress = Objects.requireNonNull(progress, "progress must not be null");
        return this;
    }

    /** Runs every scenario for every target. A failing scenario is recorded with its error, not thrown. */
    public ComparisonResult run() {
        List<Measurement> out = new ArrayList<>();
        long start = System.nanoTime();
        UncontendedScenario uncontended = new UncontendedScenario(settings, List.copyOf(targets));
        Map<String, Measurement> uncontendedDone = new HashMap<>();
        for (int t = 0; t < targets.size(); t++) {
            ComparisonTarget target = targets.get(t);
            int step = 0;
            for (Scenario s : Scenario.values()) {
                if (!settings.scenarios().contains(s)) {
                    continue;
                }
                step++;
                progress.accept(String.format(
                        "[%d/%d] %s: %s (%d/%d)",
                        t + 1,
                        targets.size(),
                        target.name(),
                        s.title(),
                        step,
                        settings.scenarios().size()));
                try {
                    out.add(
                            s == Scenario.UNCONTENDED
                                    ? uncontended.measure(target, uncontendedDone)
                                    : runScenario(target, s));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("comparison interrupted", e);
                } catch (RuntimeException | AssertionError e) {
                    out.add(ScenarioSupport.failed(target, s, e));
                }
            }
        }
        return new ComparisonResult(settings, List.copyOf(targets), out, Duration.ofNanos(System.nanoTime() - start));
    }

    private Measurement runScenario(ComparisonTarget target, Scenario s) throws InterruptedException {
        OneClientScenarios oneClient = new OneClientScenarios(settings);
        switch (s) {
            case FLOOR:
                return oneClient.floor(target);
            case CONTENDED:
                return new ContendedScenario(settings).measure(target);
            case HANDOFF_1:
                return new HandoffScenario(settings).measure(target, s, 1);
            case HANDOFF_MANY:
                return new HandoffScenario(settings).measure(target, s, settings.manyWaiters());
            case MANY_NAMES:
                return oneClient.manyNames(target);
            case RENEWAL:
                return oneClient.renewal(target);
            default:
                throw new IllegalArgumentException("scenario " + s + " is not run one target at a time");
        }
    }
}
