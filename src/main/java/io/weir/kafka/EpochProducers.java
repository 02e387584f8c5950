package io.weir.kafka;

import io.weir.checkpoint.EpochOutputs;
import io.weir.checkpoint.TaskCheckpoint;
import io.weir.element.InputPartition;
import java.util.List;
import java.util.Map;

/**
 * The producers behind the epochs of one execution: transactional (exactly-once) or a single
 * idempotent producer (at-least-once). Both write the checkpoint metadata the same way.
 */
public interface EpochProducers extends EpochOutputs, AutoCloseable {
    boolean canOpenEpoch();

    void openEpoch(long epoch);

    /** Commits checkpoint n: its epoch's output, one metadata record per task, the positions. */
    void commit(long checkpointId, List<TaskCheckpoint> tasks, Map<InputPartition, Long> positions, Object fencingToken)
            throws Exception;

    /** Closes every producer at once: open transactions are left to be aborted by the next owner. */
    @Override
    void close();
}
