/**
 * The dataflow inside one instance: {@link io.weir.dataflow.Channel}s from the source loop to
 * tasks, the {@link io.weir.dataflow.Task} with its operator chain and barrier handling, and the
 * {@link io.weir.dataflow.Worker} threads that each own a fixed set of tasks (single writer: a
 * task's operators, state and channel read sides are only touched by its worker).
 */
package io.weir.dataflow;
