/**
 * Built-in operators and formats: the {@link io.weir.operators.Aggregate} of the running-totals job,
 * the JSON, string and bytes {@link io.weir.dataflow.Codec}s, and custom operators: the
 * {@link io.weir.operators.ProcessOperator} that runs an {@code io.weir.api.Processor} and the
 * {@link io.weir.operators.Plugins} that load them from the plugins directory.
 */
package io.weir.operators;
