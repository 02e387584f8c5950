/**
 * Built-in operators and formats: the {@link io.weir.operators.Aggregate} of the running-totals job
 * and the JSON, string and bytes {@link io.weir.dataflow.Codec}s.
 */
package io.weir.operators;
