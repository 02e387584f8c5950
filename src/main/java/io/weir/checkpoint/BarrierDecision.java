package io.weir.checkpoint;

/** What a task does after a barrier arrived on one of its channels. */
public sealed interface BarrierDecision {
    /** Align mode: the channel stays blocked until the barrier arrived on every channel. */
    record Block(int channel) implements BarrierDecision {}

    /** Track mode: the barrier is noted, the channel keeps flowing. */
    record Track(long checkpointId) implements BarrierDecision {}

    /** The barrier arrived on every channel: snapshot now, forward the barrier, unblock all. */
    record Snapshot(long checkpointId) implements BarrierDecision {}

    /** A barrier of a checkpoint already completed or aborted here: drop it. */
    record Stale(long checkpointId) implements BarrierDecision {}

    /**
     * A newer barrier arrived while checkpoint {@code abortedId} was still aligning: that
     * checkpoint is given up here (its blocked channels unblock) and {@code then} applies to the
     * newer barrier.
     */
    record Overtaken(long abortedId, BarrierDecision then) implements BarrierDecision {}
}
