package io.weir.checkpoint;

import io.weir.element.InputPartition;
import java.util.List;
import java.util.Map;

/**
 * The coordinator's edge to the outside world: opening epochs, injecting barriers, committing.
 * Implemented over Kafka in {@code io.weir.kafka}; faked in tests.
 */
public interface CheckpointIo {
    /** Whether a producer is free for one more open epoch. */
    boolean canOpenEpoch();

    /** Opens the output of {@code epoch}; opening an open epoch again does nothing. */
    void openEpoch(long epoch);

    /**
     * Asks the source loop to put barrier n into every channel. It answers, from its own thread,
     * with {@link CheckpointCoordinator#injected} or {@link CheckpointCoordinator#skipped}.
     */
    void injectBarrier(long checkpointId);

    /**
     * Makes checkpoint n durable: its epoch's output, the metadata of every task and the positions
     * become visible together (exactly-once: one transaction). Blocking; runs on the committer
     * thread, one checkpoint at a time, in id order.
     */
    void commit(long checkpointId, List<TaskCheckpoint> tasks, Map<InputPartition, Long> positions, Object fencingToken)
            throws Exception;
}
