package io.weir.app;

import io.weir.checkpoint.TaskCheckpoint;
import io.weir.dataflow.Task;
import io.weir.element.InputPartition;
import io.weir.kafka.KafkaClients;
import io.weir.kafka.KafkaSnapshotStore;
import io.weir.state.FileSnapshotStore;
import io.weir.state.KeyedState;
import io.weir.state.MemoryBackend;
import io.weir.state.RestorePoint;
import io.weir.state.RocksDbBackend;
import io.weir.state.SnapshotStore;
import io.weir.state.StateBackend;
import io.weir.state.StateHandle;
import io.weir.state.StateSplit;
import io.weir.state.StateStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The re-split of {@code weir rescale}: restores each planned stage's last checkpoints into stores
 * of a scratch directory, moves every entry to its key's task under the new count, raises the new
 * tasks to the old tasks' highest watermark, uploads their snapshots and returns their checkpoints
 * (which {@link Rescaler} commits).
 */
final class CheckpointResplit {
    private final InstanceSettings settings;
    private final KafkaClients clients;
    private final Consumer<String> out;

    /** {@code out} receives one line per step, for the command's output. */
    CheckpointResplit(InstanceSettings settings, KafkaClients clients, Consumer<String> out) {
        this.settings = settings;
        this.clients = clients;
        this.out = out;
    }

    /** The new tasks' checkpoints of every plan, their state re-split and uploaded. */
    List<TaskCheckpoint> split(List<RescalePlan> plans, long id) throws IOException, Rescaler.Refused {
        Path work =
                settings.state().dir().resolve(settings.application()).resolve("rescale-" + System.currentTimeMillis());
        List<TaskCheckpoint> written = new ArrayList<>();
        try (SnapshotStore snapshots = snapshots()) {
            for (RescalePlan plan : plans) {
                written.addAll(split(plan, id, work, snapshots));
            }
        } finally {
            deleteRecursively(work);
        }
        return written;
    }

    private List<TaskCheckpoint> split(RescalePlan plan, long id, Path work, SnapshotStore snapshots)
            throws IOException, Rescaler.Refused {
        String generation = OrphanSweep.newGeneration(System.currentTimeMillis());
        List<StateStore> from = new ArrayList<>();
        List<StateStore> into = new ArrayList<>();
        try (StateBackend old = backend(work.resolve("from-" + plan.stage().name()));
                StateBackend fresh = backend(work.resolve("into-" + plan.stage().name()))) {
            try {
                for (int p = 0; p < plan.before(); p++) {
                    TaskCheckpoint c = plan.checkpoints().get(p);
                    from.add(old.open(
                            c.task(), generation, new RestorePoint(c.task(), c.checkpointId(), c.state()), snapshots));
                }
                for (int q = 0; q < plan.after(); q++) {
                    into.add(fresh.open(plan.stage().taskName(q), generation, null, snapshots));
                }
                StateSplit.Counts counts;
                try {
                    counts = StateSplit.split(
                            from,
                            into,
                            key -> Rescaler.partition(key, plan.before()),
                            key -> Rescaler.partition(key, plan.after()));
                } catch (IllegalStateException | IllegalArgumentException e) {
                    throw new Rescaler.Refused("stage " + plan.stage().name() + ": " + e.getMessage());
                }
                out.accept("stage " + plan.stage().name() + ": " + counts.entries() + " state entries, "
                        + counts.moved() + " moved to another task");
                // Every task starts at the highest watermark of the old tasks: a key's window that
                // closed before stays closed in whichever task the key now lives (no second result);
                // a lagging partition's records below it are late. Tasks that never had one do not count.
                long floor = from.stream()
                        .mapToLong(store -> Task.recordedWatermark(new KeyedState(store)))
                        .max()
                        .orElse(Long.MIN_VALUE);
                if (floor > Long.MIN_VALUE) {
                    into.forEach(store -> Task.raiseWatermark(new KeyedState(store), floor));
                    out.accept("stage " + plan.stage().name() + ": every task starts at watermark "
                            + java.time.Instant.ofEpochMilli(floor) + " at least");
                }
                Map<Integer, Map<InputPartition, Long>> positions = positions(plan);
                List<TaskCheckpoint> checkpoints = new ArrayList<>();
                long now = System.currentTimeMillis();
                for (int q = 0; q < plan.after(); q++) {
                    StateHandle handle = into.get(q).snapshot(id).write(snapshots, () -> false);
                    checkpoints.add(new TaskCheckpoint(plan.stage().taskName(q), id, now, positions.get(q), handle));
                }
                return checkpoints;
            } finally {
                from.forEach(StateStore::close);
                into.forEach(StateStore::close);
            }
        }
    }

    /** Each new task's positions: an old partition's from its checkpoint, a new one's from its beginning. */
    private Map<Integer, Map<InputPartition, Long>> positions(RescalePlan plan) {
        Map<Integer, Map<InputPartition, Long>> positions = new HashMap<>();
        List<TopicPartition> added = new ArrayList<>();
        for (String topic : plan.stage().inputTopics()) {
            for (int q = plan.before(); q < plan.after(); q++) {
                added.add(new TopicPartition(topic, q));
            }
        }
        Map<TopicPartition, Long> beginnings;
        try (KafkaConsumer<byte[], byte[]> c = clients.reader(settings.application() + "-rescale-check", true)) {
            beginnings = c.beginningOffsets(added, Rescaler.TIMEOUT);
        }
        for (int q = 0; q < plan.after(); q++) {
            Map<InputPartition, Long> of = new TreeMap<>();
            for (String topic : plan.stage().inputTopics()) {
                InputPartition ip = new InputPartition(topic, q);
                of.put(
                        ip,
                        q < plan.before()
                                ? plan.checkpoints().get(q).positions().get(ip)
                                : beginnings.get(new TopicPartition(topic, q)));
            }
            positions.put(q, of);
        }
        return positions;
    }

    private SnapshotStore snapshots() throws IOException {
        StateSettings state = settings.state();
        return state.snapshots() == StateSettings.SnapshotStoreKind.KAFKA
                ? new KafkaSnapshotStore(clients, settings.snapshotTopic(), settings.application() + "-rescale")
                : new FileSnapshotStore(state.snapshotDir());
    }

    private StateBackend backend(Path dir) throws IOException {
        StateSettings state = settings.state();
        return state.backend() == StateSettings.Backend.ROCKSDB
                ? new RocksDbBackend(dir, state.rocksdb())
                : new MemoryBackend();
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
