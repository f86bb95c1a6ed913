package io.distlock.compare;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The figures of one comparison run, with writers for JSON, Markdown and a self-contained HTML
 * report.
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
        this.settings = settings;
        this.targets = targets;
        this.measurements = measurements;
        this.elapsed = elapsed;
        Runtime rt = Runtime.getRuntime();
        environment.put("java.version", System.getProperty("java.version"));
        environment.put("java.vm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
        environment.put(
                "os",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"));
        environment.put("cpus", String.valueOf(rt.availableProcessors()));
        environment.put("max_heap_mb", String.valueOf(rt.maxMemory() / (1024 * 1024)));
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

    /** The measurement of {@code scenario} for {@code target}, if it ran. */
    public Optional<Measurement> find(String target, Scenario scenario) {
        return measurements.stream()
                .filter(m -> m.target().equals(target) && m.scenario() == scenario)
                .findFirst();
    }

    /** A metric, if measured. */
    public OptionalDouble valueIfPresent(String target, Scenario scenario, String metric) {
        return find(target, scenario).map(m -> m.value(metric)).orElse(OptionalDouble.empty());
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

    public String toJson() {
        return ReportWriter.json(this);
    }

    public String toMarkdown() {
        return ReportWriter.markdown(this);
    }

    public String toHtml() {
        return ReportWriter.html(this);
    }
}
