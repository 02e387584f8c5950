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

    /**
     * Aborts the open transactions, so read_committed readers downstream are not held up until the
     * transaction timeout. Best effort: an abort that fails is left to the next owner of the
     * transactional id, whose initialisation aborts it. Whether every open transaction was aborted
     * (true when none was open): the producers can then open new ones.
     */
    boolean abortOpen();

    /** Closes every producer at once; any transaction still open is left to the next owner. */
    @Override
    void close();
}
