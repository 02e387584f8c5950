/**
 * Operating a running instance: {@link io.weir.ops.WeirMetrics} adapts the instance's counters and
 * events to Micrometer meters (Prometheus), {@link io.weir.ops.CheckpointHistory} keeps the last
 * checkpoints, {@link io.weir.ops.Readiness} decides readiness, and {@link io.weir.ops.OpsServer}
 * serves them over HTTP. {@link io.weir.ops.Ops} puts them together for {@code weir run} and
 * {@code weir dev}. The core packages know nothing of this one.
 */
package io.weir.ops;
