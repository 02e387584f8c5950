package io.weir.app;

import io.weir.checkpoint.CheckpointSettings;
import io.weir.checkpoint.RestartStrategy;
import io.weir.dataflow.Stage;
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
        StateSettings state) {

    public String checkpointTopic() {
        return application + "-checkpoints";
    }

    public String snapshotTopic() {
        return application + "-snapshots";
    }

    /** This instance's part of the state directory: instances sharing a disk never share a database. */
    public java.nio.file.Path localStateDir() {
        return state.dir().resolve(application).resolve(instanceId);
    }

    /** The prefix of this instance's transactional ids; the slot number follows. */
    public String transactionalIdPrefix() {
        return application + "-" + instanceId + "-";
    }
}
