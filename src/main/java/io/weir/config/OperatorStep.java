package io.weir.config;

/**
 * A step between the source and the terminal step that transforms the stream: filtering, mapping,
 * re-keying, de-duplicating, aggregating, or a custom operator loaded from a plugin jar.
 */
public sealed interface OperatorStep extends Step
        permits FilterStep, MapStep, KeyByStep, DedupeStep, AggregateStep, ProcessStep, JoinStep, LookupStep {}
