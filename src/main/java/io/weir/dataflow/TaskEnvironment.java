package io.weir.dataflow;

import io.weir.checkpoint.CheckpointAcks;
import io.weir.checkpoint.EpochOutputs;
import java.util.function.LongSupplier;

/** What every task of one execution shares: the barrier mode, outputs, the coordinator, the clock. */
public record TaskEnvironment(
        boolean align,
        EpochOutputs outputs,
        CheckpointAcks acks,
        LongSupplier clock,
        Counters counters,
        RecordLimits limits) {
    public TaskEnvironment(
            boolean align, EpochOutputs outputs, CheckpointAcks acks, LongSupplier clock, Counters counters) {
        this(align, outputs, acks, clock, counters, RecordLimits.defaults());
    }
}
