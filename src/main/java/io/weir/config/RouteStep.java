package io.weir.config;

import io.weir.expr.Expression;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Writes each record to the sink of the first case whose {@code when} condition holds, or to the
 * {@code otherwise} sink (the file's {@code default}) when none does; without a default, records
 * no case matches are dropped (counted, not dead-lettered). There is at least one case.
 */
public record RouteStep(List<RouteCase> cases, Optional<SinkStep> otherwise) implements TerminalStep {

    /** One case: records for which {@code when} gives true go to {@code sink}. */
    public record RouteCase(Expression when, SinkStep sink) {
        public RouteCase {
            Objects.requireNonNull(when, "when");
            Objects.requireNonNull(sink, "sink");
        }
    }

    public RouteStep {
        cases = List.copyOf(cases);
        Objects.requireNonNull(otherwise, "otherwise");
        if (cases.isEmpty()) {
            throw new IllegalArgumentException("a route needs at least one case with when and sink");
        }
    }

    @Override
    public String type() {
        return "route";
    }

    @Override
    public List<SinkStep> sinks() {
        List<SinkStep> sinks = new ArrayList<>();
        cases.forEach(c -> sinks.add(c.sink()));
        otherwise.ifPresent(sinks::add);
        return List.copyOf(sinks);
    }
}
