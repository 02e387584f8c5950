package io.weir.app;

import io.weir.checkpoint.CheckpointSettings;
import io.weir.checkpoint.RestartStrategy;
import io.weir.dataflow.Stage;
import java.time.Duration;
import java.util.List;

/**
 * Everything an instance needs to run a job, resolved from the config file: its stages (the first
 * reads the job's source; each later one reads the repartition topic the one before writes), the
 * topics it writes and how it processes. {@code replicationFactor} is that of the topics it creates,
 * -1 for the broker's default. {@code standby} is how many other instances keep a warm copy of each
 * task's state ({@link Standby}).
 */
public record InstanceSettings(
        String application,
        String instanceId,
        List<Stage> stages,
        List<OutputTopic> outputs,
        boolean exactlyOnce,
        int threads,
        int channelCapacity,
        boolean resetToEarliest,
        Duration transactionTimeout,
        CheckpointSettings checkpoint,
        RestartStrategy.Settings restart,
        StateSettings state,
        boolean truncateDeadLetters,
        int replicationFactor,
        int standby) {

    public InstanceSettings {
        stages = List.copyOf(stages);
        outputs = List.copyOf(outputs);
        if (stages.isEmpty()) {
            throw new IllegalArgumentException("a job needs at least one stage");
        }
    }

    /** The first stage: it reads the job's source topics. */
    public Stage firstStage() {
        return stages.get(0);
    }

    /** Every topic any stage reads, in stage order. */
    public List<String> inputTopics() {
        return stages.stream().flatMap(s -> s.inputTopics().stream()).distinct().toList();
    }

    /** The stage reading {@code topic}; null for a topic no stage reads. */
    public Stage stageReading(String topic) {
        for (Stage s : stages) {
            if (s.inputTopics().contains(topic)) {
                return s;
            }
        }
        return null;
    }

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
