package io.weir.app;

import io.weir.checkpoint.CheckpointSettings;
import io.weir.checkpoint.RestartStrategy;
import io.weir.dataflow.Stage;
import java.nio.file.Path;
import java.time.Duration;

/** Everything an instance needs to run one stage, resolved from the config file. */
public record InstanceSettings(
        String application,
        String instanceId,
        Stage stage,
        boolean exactlyOnce,
        int threads,
        int channelCapacity,
        boolean resetToEarliest,
        Duration transactionTimeout,
        CheckpointSettings checkpoint,
        RestartStrategy.Settings restart,
        SnapshotStoreKind snapshots,
        Path snapshotDir,
        int retain) {

    /** Where the asynchronous parts of snapshots go. */
    public enum SnapshotStoreKind {
        KAFKA,
        FILESYSTEM
    }

    public String checkpointTopic() {
        return application + "-checkpoints";
    }

    public String snapshotTopic() {
        return application + "-snapshots";
    }

    /** The prefix of this instance's transactional ids; the slot number follows. */
    public String transactionalIdPrefix() {
        return application + "-" + instanceId + "-";
    }
}
