/**
 * Tools around a job, usable from the CLI, tests and benchmarks: the {@link
 * io.weir.tools.OrderGenerator} that writes the running-totals input, and the {@link
 * io.weir.tools.RunningTotalsVerifier} that checks, on real topics, that every input counted
 * exactly once.
 */
package io.weir.tools;
