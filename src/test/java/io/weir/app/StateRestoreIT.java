package io.weir.app;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.checkpoint.TaskCheckpoint;
import io.weir.config.ConfigLoader;
import io.weir.config.WeirConfig;
import io.weir.fixtures.ForwardingSnapshotStore;
import io.weir.fixtures.KafkaFixture;
import io.weir.kafka.CheckpointReader;
import io.weir.kafka.KafkaClients;
import io.weir.kafka.KafkaSnapshotStore;
import io.weir.state.StoredFile;
import io.weir.tools.OrderGenerator;
import io.weir.tools.RunningTotalsVerifier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Restores at the instance level, on the real broker: a failed upload fails over in process and the
 * tasks come back from their checkpoints in place, and a checkpoint that cannot be restored stops
 * the instance with an error naming what is wrong.
 */
@Timeout(180)
class StateRestoreIT {
    private static final Duration DEADLINE = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    @Test
    void aCheckpointWithAMissingFileStopsTheInstanceNamingTaskCheckpointAndFile() throws Exception {
        String app = KafkaFixture.uniqueTopic("lost");
        String orders = KafkaFixture.createTopic(app + "-orders", 2);
        try (OrderGenerator g = new OrderGenerator(KafkaFixture.bootstrap(), orders, 50, 21)) {
            g.send(2_000);
        }
        try (Instance first = start(config(app, orders, "pod-1"))) {
            await().atMost(DEADLINE)
                    .until(() -> new RunningTotalsVerifier(KafkaFixture.bootstrap())
                                            .verify(orders, app + "-totals", true)
                                            .outputs()
                                    >= 2_000
                            && first.stats().lastCompletedCheckpoint() > 0);
        }
        TaskCheckpoint checkpoint = new CheckpointReader(
                        KafkaClients.of(KafkaFixture.bootstrap()), app + "-checkpoints")
                .latest(null, Duration.ofSeconds(30))
                .values()
                .iterator()
                .next();
        StoredFile lost = checkpoint.state().files().get(0);
        Files.delete(dir.resolve("snapshots").resolve(lost.name()));

        // A new pod: nothing local to recover from, the file has to come from the store.
        Instance second = start(config(app, orders, "pod-2"));
        try {
            await().atMost(DEADLINE).until(second::stopped);
            Throwable fatal = second.awaitTermination();
            assertNotNull(fatal, "the instance stopped without an error");
            String message = fatal.toString(); // what `weir run` prints when it stops
            assertTrue(message.contains("task " + checkpoint.task()), message);
            assertTrue(message.contains("checkpoint " + checkpoint.checkpointId()), message);
            assertTrue(message.contains(lost.name()), message);
        } finally {
            second.close();
        }
    }

    @Test
    void aFailedUploadFailsOverInProcessAndTheTasksRestoredInPlaceLoseNothing() throws Exception {
        String app = KafkaFixture.uniqueTopic("failover");
        String orders = KafkaFixture.createTopic(app + "-orders", 4);
        produce(orders, 10_000, 31);
        AtomicBoolean failNext = new AtomicBoolean();
        AtomicReference<String> failed = new AtomicReference<>();
        Seams seams = new Seams(
                store -> new ForwardingSnapshotStore(store) {
                    @Override
                    public StoredFile write(String name, Path file) throws IOException {
                        StoredFile stored = inner.write(name, file); // stored, then refused: an orphan to sweep
                        if (failNext.compareAndSet(true, false)) {
                            failed.set(name);
                            throw new IOException("injected upload failure");
                        }
                        return stored;
                    }
                },
                UnaryOperator.identity());
        WeirConfig config = new ConfigLoader()
                .load(
                        Path.of("config/examples/running-totals.yaml"),
                        Map.of(),
                        List.of(
                                "application=" + app,
                                "instance-id=i1",
                                "kafka.bootstrap=" + KafkaFixture.bootstrap(),
                                "pipeline.0.source.topic=" + orders,
                                "pipeline.2.sink.topic=" + app + "-totals",
                                "processing.checkpoint.interval=200ms",
                                "processing.restart.initial-backoff=100ms",
                                "processing.state.dir=" + dir.resolve("pod-1")));
        KafkaClients clients = KafkaClients.of(KafkaFixture.bootstrap());
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config), seams);
                KafkaSnapshotStore store = new KafkaSnapshotStore(clients, app + "-snapshots", "test")) {
            instance.start();
            awaitVerified(orders, app, 10_000);
            failNext.set(true);
            produce(orders, 10_000, 32);
            await().atMost(DEADLINE).until(() -> failed.get() != null);
            awaitVerified(orders, app, 20_000);
            // Only a new execution sweeps: the file's disappearance shows the failover happened.
            await().atMost(DEADLINE)
                    .until(() -> store.list(n -> n.equals(failed.get())).isEmpty());
        }
        RunningTotalsVerifier.Result result = verify(orders, app);
        assertTrue(result.ok(), result.toString());
        assertEquals(20_000, result.outputs());
    }

    private static void produce(String orders, long count, long seed) {
        try (OrderGenerator g = new OrderGenerator(KafkaFixture.bootstrap(), orders, 200, seed)) {
            g.send(count);
        }
    }

    private static RunningTotalsVerifier.Result verify(String orders, String app) throws IOException {
        return new RunningTotalsVerifier(KafkaFixture.bootstrap()).verify(orders, app + "-totals", true);
    }

    private static void awaitVerified(String orders, String app, long inputs) {
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(250)).until(() -> {
            RunningTotalsVerifier.Result r = verify(orders, app);
            return r.outputs() >= inputs && r.ok();
        });
    }

    private WeirConfig config(String app, String orders, String pod) throws Exception {
        return new ConfigLoader()
                .load(
                        Path.of("config/examples/running-totals.yaml"),
                        Map.of(),
                        List.of(
                                "application=" + app,
                                "instance-id=i1",
                                "kafka.bootstrap=" + KafkaFixture.bootstrap(),
                                "pipeline.0.source.topic=" + orders,
                                "pipeline.2.sink.topic=" + app + "-totals",
                                "processing.checkpoint.interval=200ms",
                                "processing.restart.strategy=none",
                                "processing.state.backend=rocksdb",
                                "processing.state.dir=" + dir.resolve(pod),
                                "processing.state.snapshots=filesystem",
                                "processing.state.snapshot-dir=" + dir.resolve("snapshots")));
    }

    private static Instance start(WeirConfig config) throws Exception {
        Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config));
        instance.start();
        return instance;
    }
}
