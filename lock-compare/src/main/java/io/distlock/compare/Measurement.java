package io.distlock.compare;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * What one scenario measured for one target under one condition. Values are keyed by metric name,
 * with units in the name ({@code p50_us}, {@code ops_per_s}, {@code round_trips_per_op}, ...).
 *
 * @param target the target's name
 * @param scenario the scenario
 * @param condition the machine mode, network delay and scale point it ran under
 * @param values the metrics
 * @param samplesMicros latency samples in microseconds (possibly down-sampled), for distributions
 * @param note what went wrong or what to keep in mind, or null
 */
public record Measurement(
        String target,
        Scenario scenario,
        Condition condition,
        Map<String, Double> values,
        List<Double> samplesMicros,
        String note) {

    public Measurement {
        Objects.requireNonNull(target);
        Objects.requireNonNull(scenario);
        condition = condition == null ? Condition.BASE : condition;
        values = Map.copyOf(values);
        samplesMicros = samplesMicros == null ? List.of() : List.copyOf(samplesMicros);
    }

    /** A measurement under {@link Condition#BASE}. */
    public Measurement(
            String target, Scenario scenario, Map<String, Double> values, List<Double> samplesMicros, String note) {
        this(target, scenario, Condition.BASE, values, samplesMicros, note);
    }

    /** The value of {@code metric}, if measured. */
    public OptionalDouble value(String metric) {
        Double v = values.get(metric);
        return v == null ? OptionalDouble.empty() : OptionalDouble.of(v);
    }

    /** This measurement under {@code c}. */
    public Measurement under(Condition c) {
        return new Measurement(target, scenario, c, values, samplesMicros, note);
    }

    /** This measurement with {@code more} values added (replacing values of the same name). */
    public Measurement with(Map<String, Double> more) {
        Map<String, Double> v = new java.util.LinkedHashMap<>(values);
        v.putAll(more);
        return new Measurement(target, scenario, condition, v, samplesMicros, note);
    }
}
