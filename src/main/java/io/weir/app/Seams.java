package io.weir.app;

import io.weir.checkpoint.CheckpointIo;
import io.weir.state.SnapshotStore;
import java.util.function.UnaryOperator;

/**
 * Decorators around an instance's snapshot store, checkpoint I/O and the gate an execution passes
 * before its workers start: where fault-injection tests make a snapshot or a commit fail or hold an
 * execution at its gate, and where instrumentation can wrap them. {@link #NONE} leaves all as they
 * are.
 */
public record Seams(
        UnaryOperator<SnapshotStore> snapshots,
        UnaryOperator<CheckpointIo> checkpointIo,
        UnaryOperator<Execution.StartGate> startGate) {
    public static final Seams NONE = new Seams(UnaryOperator.identity(), UnaryOperator.identity());

    public Seams(UnaryOperator<SnapshotStore> snapshots, UnaryOperator<CheckpointIo> checkpointIo) {
        this(snapshots, checkpointIo, UnaryOperator.identity());
    }
}
