package io.weir.checkpoint;

import io.weir.state.SnapshotPart;

/** How a task reports its part of a checkpoint to the coordinator. */
public interface CheckpointAcks {
    /** The task took the synchronous part of its snapshot for checkpoint n and forwarded the barrier. */
    void acknowledge(String task, long checkpointId, SnapshotPart asyncPart);

    /** As {@link #acknowledge(String, long, SnapshotPart)}, saying how long the synchronous part took. */
    default void acknowledge(String task, long checkpointId, SnapshotPart asyncPart, long syncMillis) {
        acknowledge(task, checkpointId, asyncPart);
    }
}
