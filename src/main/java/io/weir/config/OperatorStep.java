package io.weir.config;

/**
 * A step between the source and the sink that transforms the stream. Aggregation is the only
 * operator for now.
 */
public sealed interface OperatorStep extends Step permits AggregateStep {}
