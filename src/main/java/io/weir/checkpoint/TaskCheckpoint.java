package io.weir.checkpoint;

import io.weir.element.InputPartition;
import io.weir.state.StateHandle;
import java.util.Map;
import java.util.TreeMap;

/**
 * One task's part of a completed checkpoint: the positions Sn of its input partitions (next offset
 * to read) and the handle of its state after every record before the cut.
 */
public record TaskCheckpoint(
        String task, long checkpointId, long timestamp, Map<InputPartition, Long> positions, StateHandle state) {
    public static final int FORMAT_VERSION = 1;

    public TaskCheckpoint {
        if (checkpointId <= 0) {
            throw new IllegalArgumentException("checkpoint id must be positive, was " + checkpointId);
        }
        positions = java.util.Collections.unmodifiableMap(new TreeMap<>(positions));
    }
}
