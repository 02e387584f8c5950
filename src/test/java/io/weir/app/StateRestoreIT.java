package io.weir.app;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.checkpoint.TaskCheckpoint;
import io.weir.config.ConfigLoader;
import io.weir.config.WeirConfig;
import io.weir.fixtures.KafkaFixture;
import io.weir.kafka.CheckpointReader;
import io.weir.kafka.KafkaClients;
import io.weir.state.StoredFile;
import io.weir.tools.OrderGenerator;
import io.weir.tools.RunningTotalsVerifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What a user sees when a checkpoint cannot be restored: the instance stops, naming what is wrong. */
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
            await().atMost(DEADLINE).until(() -> new RunningTotalsVerifier(KafkaFixture.bootstrap())
                    .verify(orders, app + "-totals", true).outputs() >= 2_000
                    && first.stats().lastCompletedCheckpoint() > 0);
        }
        TaskCheckpoint checkpoint = new CheckpointReader(KafkaClients.of(KafkaFixture.bootstrap()),
                app + "-checkpoints").latest(null, Duration.ofSeconds(30)).values().iterator().next();
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

    private WeirConfig config(String app, String orders, String pod) throws Exception {
        return new ConfigLoader().load(Path.of("config/examples/running-totals.yaml"), Map.of(), List.of(
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
