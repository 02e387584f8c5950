package io.weir.config;

/**
 * One step of a pipeline, written in the file as a single-key mapping whose key is the step's
 * {@link #type()}. A pipeline is a {@link SourceStep}, then {@link OperatorStep}s, then a
 * {@link SinkStep}; new kinds of operators (filter, map, window, join, ...) join the model as
 * further records permitted by {@link OperatorStep}, so code switching over steps is told by the
 * compiler where they need handling.
 */
public sealed interface Step permits SourceStep, OperatorStep, SinkStep {

    /** The key naming this step in the file, such as {@code aggregate}. */
    String type();
}
