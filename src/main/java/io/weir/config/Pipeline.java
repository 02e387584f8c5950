package io.weir.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The job's steps: one source, the operators in order, and a terminal step that writes the
 * results (a sink or a route). The types enforce that shape; {@link #steps()} gives all of them
 * in file order, as they are numbered in messages ({@code pipeline.0} is the source).
 */
public record Pipeline(SourceStep source, List<OperatorStep> operators, TerminalStep terminal) {

    public Pipeline {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(terminal, "terminal");
        operators = List.copyOf(operators);
    }

    /** Every step in order, the source first and the terminal step last. */
    public List<Step> steps() {
        List<Step> steps = new ArrayList<>();
        steps.add(source);
        steps.addAll(operators);
        steps.add(terminal);
        return List.copyOf(steps);
    }

    /**
     * The sink of a pipeline that ends with one, as before routes existed; a pipeline ending with
     * a route has none, so code that may see one uses {@link #terminal()} or {@link #sinks()}.
     *
     * @throws IllegalStateException when the pipeline ends with a route
     */
    public SinkStep sink() {
        if (terminal instanceof SinkStep sink) {
            return sink;
        }
        throw new IllegalStateException("the pipeline ends with a route, not a single sink; use terminal() or sinks()");
    }

    /** Every sink the pipeline may write to: the sink, or the sinks of the route's cases. */
    public List<SinkStep> sinks() {
        return terminal.sinks();
    }

    /** The other topics the first stage reads: the joins' and lookups' in file order. */
    public List<SideInput> sideInputs() {
        List<SideInput> sides = new ArrayList<>();
        for (OperatorStep step : operators) {
            if (step instanceof JoinStep join) {
                sides.add(join.with());
            } else if (step instanceof LookupStep lookup) {
                sides.add(lookup.table());
            }
        }
        return sides;
    }

    /** The topics the pipeline reads and writes, the source's first, each once. */
    public List<String> topics() {
        List<String> topics = new ArrayList<>();
        topics.add(source.topic());
        sideInputs().stream().map(SideInput::topic).forEach(topics::add);
        sinks().stream().map(SinkStep::topic).filter(t -> !topics.contains(t)).forEach(topics::add);
        return List.copyOf(topics);
    }
}
