package io.weir.app;

import io.weir.checkpoint.CheckpointSettings;
import io.weir.checkpoint.RestartStrategy;
import io.weir.config.DeadLetterConfig;
import io.weir.config.ProcessStep;
import io.weir.config.ProcessingConfig;
import io.weir.config.RestartConfig;
import io.weir.config.RocksDbConfig;
import io.weir.config.StateConfig;
import io.weir.config.WeirConfig;
import io.weir.dataflow.Stage;
import io.weir.kafka.KafkaClients;
import io.weir.operators.Plugins;
import io.weir.pipeline.Plan;
import io.weir.pipeline.Stages;
import io.weir.state.RocksDbSettings;
import java.util.ArrayList;
import java.util.List;

/** Turns a loaded configuration into what an {@link Instance} runs: the stage and its settings. */
public final class Jobs {
    private Jobs() {}

    public static KafkaClients clients(WeirConfig config) {
        var k = config.kafka();
        return new KafkaClients(k.bootstrap(), k.properties(), k.consumer(), k.producer(), k.admin());
    }

    public static InstanceSettings settings(WeirConfig config) {
        return settings(config, Plan.of(config));
    }

    public static InstanceSettings settings(WeirConfig config, Plan plan) {
        ProcessingConfig p = config.processing();
        List<Stage> stages = Stages.of(plan, config.deadLetter().topic(), processors(config));
        List<OutputTopic> outputs = new ArrayList<>();
        for (Plan.TopicPlan t : plan.topics()) {
            switch (t.role()) {
                case SINK, DEAD_LETTER -> outputs.add(new OutputTopic(t.name(), t.partitions(), false));
                case REPARTITION -> outputs.add(new OutputTopic(t.name(), t.partitions(), true));
                default -> {}
            }
        }
        var c = p.checkpoint();
        return new InstanceSettings(
                config.application(),
                config.instanceId(),
                stages,
                outputs,
                p.guarantee() == ProcessingConfig.Guarantee.EXACTLY_ONCE,
                p.threads(),
                p.channelCapacity(),
                p.autoOffsetReset() == ProcessingConfig.OffsetReset.EARLIEST,
                p.transactionTimeout(),
                new CheckpointSettings(c.interval(), c.timeout(), c.maxConcurrent(), c.minPause()),
                restart(p.restart()),
                state(p.state()),
                config.deadLetter().oversized() == DeadLetterConfig.Oversized.TRUNCATE,
                config.kafka().replicationFactor(),
                p.standby());
    }

    /** Makes the operators of {@code process} steps from the plugins folder. */
    static Stages.Processors processors(WeirConfig config) {
        boolean any = config.pipeline().operators().stream().anyMatch(s -> s instanceof ProcessStep);
        if (!any) {
            return (step, className, with) -> {
                throw new IllegalStateException("no process step at " + step);
            };
        }
        Plugins plugins = Plugins.load(config.processing().plugins());
        return plugins::processorFactory;
    }

    private static StateSettings state(StateConfig state) {
        return new StateSettings(
                state.backend() == StateConfig.Backend.ROCKSDB
                        ? StateSettings.Backend.ROCKSDB
                        : StateSettings.Backend.MEMORY,
                state.dir(),
                state.snapshots() == StateConfig.SnapshotStore.KAFKA
                        ? StateSettings.SnapshotStoreKind.KAFKA
                        : StateSettings.SnapshotStoreKind.FILESYSTEM,
                state.snapshotDir().orElse(state.dir().resolve("snapshots")),
                state.retain(),
                new RocksDbSettings(
                        state.rocksdb().blockCacheBytes(),
                        state.rocksdb().writeBufferBytes(),
                        RocksDbSettings.defaultHeapCacheBytes(),
                        state.rocksdb().cachedWrites() == RocksDbConfig.CachedWrites.CARRY));
    }

    private static RestartStrategy.Settings restart(RestartConfig r) {
        return new RestartStrategy.Settings(
                RestartStrategy.Kind.valueOf(r.strategy().name()),
                r.delay(),
                r.initialBackoff(),
                r.maxBackoff(),
                r.multiplier(),
                r.jitter(),
                r.attempts(),
                r.maxFailures(),
                r.failureWindow());
    }
}
