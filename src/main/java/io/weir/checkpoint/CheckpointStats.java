package io.weir.checkpoint;

import java.util.List;
import java.util.Map;

/**
 * How one completed checkpoint went, measured by the coordinator's clock. Alignment is the slowest
 * task's wait from the trigger until its barrier aligned (including the barrier's way through the
 * channels); sync the slowest task's synchronous part (snapshot capture and the flush of its epoch);
 * upload the slowest task's asynchronous part; commit the transaction that wrote the checkpoint
 * records and offsets; total from trigger to commit.
 */
public record CheckpointStats(
        long checkpointId,
        long startedAt,
        long alignmentMillis,
        long syncMillis,
        long uploadMillis,
        long commitMillis,
        long totalMillis,
        long uploadedBytes,
        Map<String, Long> stateBytes,
        List<TaskCheckpoint> tasks) {
    public CheckpointStats {
        stateBytes = Map.copyOf(stateBytes);
        tasks = List.copyOf(tasks);
    }
}
