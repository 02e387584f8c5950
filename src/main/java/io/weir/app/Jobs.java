package io.weir.app;

import io.weir.checkpoint.CheckpointSettings;
import io.weir.checkpoint.RestartStrategy;
import io.weir.config.AggregateStep;
import io.weir.config.OperatorStep;
import io.weir.config.ProcessingConfig;
import io.weir.config.RestartConfig;
import io.weir.config.SinkStep;
import io.weir.config.StateConfig;
import io.weir.config.WeirConfig;
import io.weir.dataflow.Operator;
import io.weir.dataflow.Stage;
import io.weir.kafka.KafkaClients;
import io.weir.operators.Aggregate;
import io.weir.operators.Codecs;
import io.weir.state.RocksDbSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/** Turns a loaded configuration into what an {@link Instance} runs: the stage and its settings. */
public final class Jobs {
    private Jobs() {}

    public static KafkaClients clients(WeirConfig config) {
        var k = config.kafka();
        return new KafkaClients(k.bootstrap(), k.properties(), k.consumer(), k.producer(), k.admin());
    }

    public static InstanceSettings settings(WeirConfig config) {
        ProcessingConfig p = config.processing();
        var source = config.pipeline().source();
        if (!(config.pipeline().terminal() instanceof SinkStep sink)) {
            throw new IllegalArgumentException("the runtime does not run a route step yet");
        }
        List<Supplier<Operator>> operators = new ArrayList<>();
        for (OperatorStep step : config.pipeline().operators()) {
            operators.add(operator(step));
        }
        Stage stage = new Stage(
                config.application(),
                List.of(source.topic()),
                Codecs.named(format(source.format())),
                operators,
                sink.topic(),
                Codecs.named(format(sink.format())),
                config.deadLetter().topic());
        var c = p.checkpoint();
        return new InstanceSettings(
                config.application(),
                config.instanceId(),
                stage,
                p.guarantee() == ProcessingConfig.Guarantee.EXACTLY_ONCE,
                p.threads(),
                p.channelCapacity(),
                p.autoOffsetReset() == ProcessingConfig.OffsetReset.EARLIEST,
                p.transactionTimeout(),
                new CheckpointSettings(c.interval(), c.timeout(), c.maxConcurrent(), c.minPause()),
                restart(p.restart()),
                state(p.state()));
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
                        state.rocksdb().blockCacheBytes(), state.rocksdb().writeBufferBytes()));
    }

    private static Supplier<Operator> operator(OperatorStep step) {
        if (step instanceof AggregateStep a) {
            if (!a.first().isEmpty()) {
                throw new IllegalArgumentException("the runtime does not compute first yet");
            }
            Aggregate.Spec spec =
                    new Aggregate.Spec(a.keyAs(), a.count().orElse(null), a.sum(), a.min(), a.max(), a.avg(), a.last());
            return () -> new Aggregate(spec);
        }
        throw new IllegalArgumentException("no operator for step " + step);
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

    private static String format(Enum<?> format) {
        return format.name().toLowerCase(Locale.ROOT);
    }
}
