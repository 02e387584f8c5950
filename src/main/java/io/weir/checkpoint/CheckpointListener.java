package io.weir.checkpoint;

import java.util.List;

/**
 * What the coordinator tells its owner: a checkpoint was triggered, skipped (nothing new to
 * commit), completed, or failed — and then the execution must fail over. Called on the
 * coordinator's loop thread.
 */
public interface CheckpointListener {
    void completed(long checkpointId, List<TaskCheckpoint> tasks, long durationMillis);

    /** Completed, with its phases and sizes; by default only {@link #completed(long, List, long)}. */
    default void completed(CheckpointStats stats) {
        completed(stats.checkpointId(), stats.tasks(), stats.totalMillis());
    }

    void failed(long checkpointId, FailureReason reason, Throwable cause);

    /** Checkpoint n was triggered at {@code startedAt}: its barrier is on its way. */
    default void triggered(long checkpointId, long startedAt) {}

    /**
     * The source had nothing new since the last barrier: nothing to checkpoint, the id is reused.
     * {@code idle} when no earlier checkpoint is still in flight: only then does the skip show that
     * checkpointing works (a broker outage leaves one in flight while the source reads nothing).
     */
    default void skipped(long checkpointId, boolean idle) {}
}
