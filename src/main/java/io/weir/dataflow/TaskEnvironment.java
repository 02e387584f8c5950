package io.weir.dataflow;

import io.weir.checkpoint.CheckpointAcks;
import io.weir.checkpoint.EpochOutputs;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * What every task of one execution shares: the barrier mode, outputs, the coordinator, the clock.
 *
 * @param prepareSnapshotAfterMs how long after its last snapshot a task asks its store to prepare
 *     the next one ({@link io.weir.state.StateStore#prepareSnapshot}); {@link Long#MAX_VALUE}: never
 * @param sendTurn held by a task while it sends a burst of outputs ({@link PendingSends}), so the
 *     workers' bursts into the shared producer follow one another instead of interleaving
 */
public record TaskEnvironment(
        boolean align,
        EpochOutputs outputs,
        CheckpointAcks acks,
        LongSupplier clock,
        Counters counters,
        RecordLimits limits,
        long prepareSnapshotAfterMs,
        Lock sendTurn) {
    public TaskEnvironment(
            boolean align,
            EpochOutputs outputs,
            CheckpointAcks acks,
            LongSupplier clock,
            Counters counters,
            RecordLimits limits,
            long prepareSnapshotAfterMs) {
        this(align, outputs, acks, clock, counters, limits, prepareSnapshotAfterMs, new ReentrantLock());
    }

    public TaskEnvironment(
            boolean align, EpochOutputs outputs, CheckpointAcks acks, LongSupplier clock, Counters counters) {
        this(align, outputs, acks, clock, counters, RecordLimits.defaults(), Long.MAX_VALUE);
    }

    /**
     * When to prepare the next snapshot with checkpoints every {@code intervalMs}: an eighth of the
     * interval (at most 1 s) before the next barrier is due, so the store's background flush has
     * time to finish and the barrier finds little left to do: what was written since the preparation.
     * With a quarter the barrier found twice as much (bench/state-snapshot.sh, 100,000 updates per 1 s
     * checkpoint: median pause 67–70 → 40–60 ms), while the early flush of the rest takes 20–60 ms.
     */
    public static long prepareSnapshotAfter(long intervalMs) {
        return intervalMs - Math.min(intervalMs / 8, 1_000);
    }
}
