package io.weir.checkpoint;

import java.util.List;

/** What the coordinator tells its owner: a checkpoint completed, or the execution must fail over. */
public interface CheckpointListener {
    void completed(long checkpointId, List<TaskCheckpoint> tasks, long durationMillis);

    void failed(long checkpointId, FailureReason reason, Throwable cause);
}
