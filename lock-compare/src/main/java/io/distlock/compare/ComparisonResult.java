package io.distlock.compare;

import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The figures of one comparison run, with writers for JSON, Markdown and a self-contained HTML
 * report. {@link #fromJson} reads a recorded {@code results.json} back, so the reports can be
 * rendered again without running anything.
 */
public final class ComparisonResult {
    private final ComparisonSettings settings;
    private final List<ComparisonTarget> targets;
    private final List<Measurement> measurements;
    private final Duration elapsed;
    private final Map<String, String> environment = new LinkedHashMap<>();

    ComparisonResult(
            ComparisonSettings settings,
            List<ComparisonTarget> targets,
            List<Measurement> measurements,
            Duration elapsed) {
        this(settings, targets, measurements, elapsed, thisMachine());
    }

    ComparisonResult(
            ComparisonSettings settings,
            List<ComparisonTarget> targets,
            List<Measurement> measurements,
            Duration elapsed,
            Map<String, String> environment) {
        this.settings = settings;
        this.targets = targets;
        this.measurements = measurements;
        this.elapsed = elapsed;
        this.environment.putAll(environment);
    }

    private static Map<String, String> thisMachine() {
        Map<String, String> environment = new LinkedHashMap<>();
        Runtime rt = Runtime.getRuntime();
        environment.put("java.version", System.getProperty("java.version"));
        environment.put("java.vm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
        environment.put(
                "os",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"));
        environment.put("cpus", String.valueOf(rt.availableProcessors()));
        environment.put("max_heap_mb", String.valueOf(rt.maxMemory() / (1024 * 1024)));
        return environment;
    }

    /**
     * The result recorded in {@code json} (a {@code results.json} written by {@link #toJson()}). Its
     * targets describe what ran and cannot open clients.
     *
     * @throws IllegalArgumentException if {@code json} is not such a file, naming what is wrong
     */
    public static ComparisonResult fromJson(String json) {
        return ResultsJsonReader.read(json);
    }

    public ComparisonSettings settings() {
        return settings;
    }

    public List<ComparisonTarget> targets() {
        return targets;
    }

    public List<Measurement> measurements() {
        return measurements;
    }

    public Duration elapsed() {
        return elapsed;
    }

    /** Facts about the machine and JVM; callers may add more (library and server versions). */
    public Map<String, String> environment() {
        return environment;
    }

    /**
     * The measurement of {@code scenario} for {@code target}, if it ran: its own measurement (direct,
     * not a scale point), in the first machine mode of the run's settings when it ran per mode.
     */
    public Optional<Measurement> find(String target, Scenario scenario) {
        return measurements.stream()
                .filter(m -> m.target().equals(target)
                        && m.scenario() == scenario
                        && m.condition().main())
                .min(Comparator.comparingInt(m -> modeRank(m.condition().mode())));
    }

    /** The measurement of {@code scenario} for {@code target} under exactly {@code condition}, if it ran. */
    public Optional<Measurement> find(String target, Scenario scenario, Condition condition) {
        return measurements.stream()
                .filter(m -> m.target().equals(target)
                        && m.scenario() == scenario
                        && m.condition().equals(condition))
                .findFirst();
    }

    /** Every measurement of {@code scenario} for {@code target}, under any condition, in run order. */
    public List<Measurement> findAll(String target, Scenario scenario) {
        return measurements.stream()
                .filter(m -> m.target().equals(target) && m.scenario() == scenario)
                .toList();
    }

    /** A metric, if measured (see {@link #find(String, Scenario)}). */
    public OptionalDouble valueIfPresent(String target, Scenario scenario, String metric) {
        return find(target, scenario).map(m -> m.value(metric)).orElse(OptionalDouble.empty());
    }

    /** A metric under exactly {@code condition}, if measured. */
    public OptionalDouble valueIfPresent(String target, Scenario scenario, Condition condition, String metric) {
        return find(target, scenario, condition).map(m -> m.value(metric)).orElse(OptionalDouble.empty());
    }

    /**
     * The machine mode {@code m} actually ran in, from the wake-up probes taken just before and after
     * it: "idle", "fast", "mixed" (one of each), or "" when it was not probed.
     */
    public String detectedMode(Measurement m) {
        return MachineModes.detected(m, environment);
    }

    /** The modes of the run's settings first, in order; then no mode. */
    private int modeRank(MachineMode mode) {
        int i = mode == null ? -1 : settings.modes().indexOf(mode);
        return mode == null ? 0 : i < 0 ? settings.modes().size() + 1 : i + 1;
    }

    /**
     * A metric that must exist.
     *
     * @throws NoSuchElementException naming what is missing (and the scenario's note, e.g. its error)
     */
    public double value(String target, Scenario scenario, String metric) {
        Optional<Measurement> m = find(target, scenario);
        if (m.isEmpty()) {
            throw new NoSuchElementException("no " + scenario + " measurement for target '" + target + "'");
        }
        return m.get()
                .value(metric)
                .orElseThrow(() ->
                        new NoSuchElementException("no metric '" + metric + "' in " + scenario + " for '" + target + "'"
                                + (m.get().note() == null ? "" : ": " + m.get().note())));
    }

    /** The result as {@code results.json}; {@link #fromJson} reads it back. */
    public String toJson() {
        return JsonReport.json(this);
    }

    /**
     * The result in Markdown: at a glance (one section per backend, ours against the peers on the
     * same server), the table of every figure, how to read each column, and notes.
     */
    public String toMarkdown() {
        return MarkdownReport.markdown(this);
    }

    /** {@link #toHtml(Map)} without safety verdicts. */
    public String toHtml() {
        return toHtml(Map.of());
    }

    /**
     * A self-contained HTML page (no scripts, SVG charts): one card per backend first, then the
     * charts by backend, the table, the declared guarantees, the method and the environment.
     *
     * @param safetyByBackend what a fault-injection run found, by backend name, for the cards;
     *     backends missing from it are shown as "not measured"
     */
    public String toHtml(Map<String, SafetyVerdict> safetyByBackend) {
        return HtmlReport.html(this, safetyByBackend);
    }
}
