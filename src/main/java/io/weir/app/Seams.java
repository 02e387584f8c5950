package io.weir.app;

import io.weir.checkpoint.CheckpointIo;
import io.weir.state.SnapshotStore;
import java.util.function.UnaryOperator;

/**
 * Decorators around an instance's snapshot store and checkpoint I/O: where fault-injection tests
 * make a snapshot or a commit fail, and where instrumentation can wrap them. {@link #NONE} leaves
 * both as they are.
 */
public record Seams(UnaryOperator<SnapshotStore> snapshots, UnaryOperator<CheckpointIo> checkpointIo) {
    public static final Seams NONE = new Seams(UnaryOperator.identity(), UnaryOperator.identity());
}
