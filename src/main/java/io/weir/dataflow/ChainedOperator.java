package io.weir.dataflow;

import java.util.function.Supplier;

/**
 * One step of a stage's operator chain: the name the configuration gives it ({@code pipeline.2.filter},
 * used in dead letters and logs) and how to make a fresh operator for each task.
 */
public record ChainedOperator(String step, Supplier<Operator> factory) {}
