package io.weir.dataflow;

import io.weir.state.Timer;

/**
 * One step of a task's operator chain. An instance belongs to one task and is called by that task's
 * worker thread only; its state lives in {@link OperatorContext#state()} so that it is snapshotted
 * and restored with the task. The current key is set before every call.
 */
public interface Operator {
    default void open(OperatorContext context) {}

    void process(Event event, Collector out) throws Exception;

    /** A timer of the current key fired. */
    default void onTimer(Timer timer, Collector out) throws Exception {}

    /** The task's event time advanced to {@code watermark}; due event-time timers already fired. */
    default void onWatermark(long watermark, Collector out) throws Exception {}
}
