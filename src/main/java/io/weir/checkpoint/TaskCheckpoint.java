package io.weir.checkpoint;

import io.weir.element.InputPartition;
import io.weir.state.StateHandle;
import java.util.Map;
import java.util.TreeMap;

/**
 * One task's part of a completed checkpoint: the positions Sn of its input partitions (next offset
 * to read), the handle of its state after every record before the cut, and how its part went
 * ({@code stats}; null in records written before Weir recorded them).
 */
public record TaskCheckpoint(
        String task,
        long checkpointId,
        long timestamp,
        Map<InputPartition, Long> positions,
        StateHandle state,
        Stats stats) {
    public static final int FORMAT_VERSION = 1;

    /**
     * This task's phases of the checkpoint: from trigger until its barrier aligned, its synchronous
     * part, its upload, and the bytes it uploaded. The commit is not here: these are written in it.
     */
    public record Stats(long alignmentMillis, long syncMillis, long uploadMillis, long uploadedBytes) {}

    public TaskCheckpoint {
        if (checkpointId <= 0) {
            throw new IllegalArgumentException("checkpoint id must be positive, was " + checkpointId);
        }
        positions = java.util.Collections.unmodifiableMap(new TreeMap<>(positions));
    }

    public TaskCheckpoint(
            String task, long checkpointId, long timestamp, Map<InputPartition, Long> positions, StateHandle state) {
        this(task, checkpointId, timestamp, positions, state, null);
    }

    /** The size of the state the checkpoint references: every file, shared or new. */
    public long stateBytes() {
        return state.files().stream().mapToLong(io.weir.state.StoredFile::size).sum();
    }
}
