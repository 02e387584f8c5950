package io.weir.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The job's steps: one source, the operators in order, one sink. The types enforce that shape;
 * {@link #steps()} gives all of them in file order, as they are numbered in messages
 * ({@code pipeline.0} is the source).
 */
public record Pipeline(SourceStep source, List<OperatorStep> operators, SinkStep sink) {

    public Pipeline {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(sink, "sink");
        operators = List.copyOf(operators);
    }

    /** Every step in order, the source first and the sink last. */
    public List<Step> steps() {
        List<Step> steps = new ArrayList<>();
        steps.add(source);
        steps.addAll(operators);
        steps.add(sink);
        return List.copyOf(steps);
    }
}
