package io.weir.app;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.checkpoint.TaskCheckpoint;
import io.weir.config.ConfigLoader;
import io.weir.fixtures.InstanceProcess;
import io.weir.fixtures.KafkaFixture;
import io.weir.kafka.CheckpointReader;
import io.weir.kafka.KafkaClients;
import io.weir.kafka.KafkaSnapshotStore;
import io.weir.state.RestorePoint;
import io.weir.state.RocksDbBackend;
import io.weir.state.RocksDbSettings;
import io.weir.state.StateStore;
import io.weir.state.StoredFile;
import io.weir.tools.OrderGenerator;
import io.weir.tools.RunningTotalsVerifier;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of a Weir process in the middle of a snapshot upload, on the real broker, with
 * RocksDB state and snapshots in Kafka; then a restart on a new pod (empty state directory, restore
 * from Kafka) or on the same pod (local recovery). Every order must count exactly once, the files
 * of the interrupted checkpoint must be swept, and the final checkpoint restored into an empty
 * directory must hold, key for key, the totals the job emitted last.
 */
@Timeout(300)
class KillDuringUploadIT {
    private static final Duration DEADLINE = Duration.ofSeconds(120);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final String app = KafkaFixture.uniqueTopic("kill");
    private final String orders = KafkaFixture.createTopic(app + "-orders", 4);
    private final String totals = app + "-totals";
    private final KafkaClients clients = KafkaClients.of(KafkaFixture.bootstrap());

    @Test
    void aKillDuringAnUploadLosesNothingAndANewPodRestoresFromKafka() throws Exception {
        killDuringUploadThenRestart("pod-2");
    }

    @Test
    void aKillDuringAnUploadLosesNothingAndTheSamePodRecoversLocally() throws Exception {
        killDuringUploadThenRestart("pod-1");
    }

    private List<String> overrides(String pod) {
        return List.of(
                "application=" + app,
                "instance-id=i1",
                "kafka.bootstrap=" + KafkaFixture.bootstrap(),
                "pipeline.0.source.topic=" + orders,
                "pipeline.2.sink.topic=" + totals,
                "processing.checkpoint.interval=300ms",
                "processing.restart.initial-backoff=100ms",
                "processing.state.backend=rocksdb",
                "processing.state.dir=" + dir.resolve(pod));
    }

    private void killDuringUploadThenRestart(String restartPod) throws Exception {
        produce(20_000, 11);
        Path stall = dir.resolve("stall");
        Path stalled = dir.resolve("stalled");
        Process first = InstanceProcess.start(stall, stalled, dir.resolve("first.log"), overrides("pod-1"));
        try {
            awaitVerified(20_000);
            produce(20_000, 12);
            Files.writeString(stall, "stall");
            await().atMost(DEADLINE).until(() -> Files.exists(stalled) || !first.isAlive());
            assertTrue(first.isAlive(), "the first instance died by itself; see " + dir.resolve("first.log"));
            first.destroyForcibly(); // SIGKILL: no shutdown hook, no close, an upload half done
            first.waitFor();
        } finally {
            first.destroyForcibly();
        }
        Set<String> orphans = orphans();
        assertFalse(orphans.isEmpty(), "the interrupted upload left files no checkpoint references");

        var config = new ConfigLoader()
                .load(Path.of("config/examples/running-totals.yaml"), Map.of(), overrides(restartPod));
        try (Instance second = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            second.start();
            awaitVerified(40_000);
            await().atMost(DEADLINE).until(() -> listed().stream().noneMatch(orphans::contains));
            await().atMost(DEADLINE).until(this::latestCheckpointsCoverEveryOrder);
        }
        RunningTotalsVerifier.Result result = verify();
        assertTrue(result.ok(), result.toString());
        assertEquals(40_000, result.outputs());
        assertEquals(lastTotalPerUser(), restoredStatePerUser(), "the restored state is the last emitted totals");
    }

    private void produce(long count, long seed) {
        try (OrderGenerator g = new OrderGenerator(KafkaFixture.bootstrap(), orders, 300, seed)) {
            g.send(count);
        }
    }

    private RunningTotalsVerifier.Result verify() throws IOException {
        return new RunningTotalsVerifier(KafkaFixture.bootstrap()).verify(orders, totals, true);
    }

    private void awaitVerified(long inputs) {
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(500)).until(() -> {
            RunningTotalsVerifier.Result r = verify();
            return r.outputs() >= inputs && r.ok();
        });
    }

    private Set<String> listed() throws IOException {
        try (KafkaSnapshotStore store = new KafkaSnapshotStore(clients, app + "-snapshots", "test-list")) {
            return store.list(n -> n.startsWith(app + "-")).stream()
                    .map(StoredFile::name)
                    .collect(Collectors.toSet());
        }
    }

    private Set<String> orphans() throws IOException {
        Set<String> referenced = new HashSet<>();
        new CheckpointReader(clients, app + "-checkpoints")
                .history(null, 3, Duration.ofSeconds(30))
                .values()
                .forEach(h -> h.forEach(c -> c.state().files().forEach(f -> referenced.add(f.name()))));
        Set<String> orphans = listed();
        orphans.removeAll(referenced);
        return orphans;
    }

    private boolean latestCheckpointsCoverEveryOrder() throws IOException {
        Map<String, TaskCheckpoint> latest =
                new CheckpointReader(clients, app + "-checkpoints").latest(null, Duration.ofSeconds(30));
        long covered = latest.values().stream()
                .flatMap(c -> c.positions().values().stream())
                .mapToLong(Long::longValue)
                .sum();
        try (KafkaConsumer<byte[], byte[]> c = clients.reader("test-ends", true)) {
            List<TopicPartition> parts = c.partitionsFor(orders).stream()
                    .map(p -> new TopicPartition(orders, p.partition()))
                    .toList();
            return covered
                    == c.endOffsets(parts).values().stream()
                            .mapToLong(Long::longValue)
                            .sum();
        }
    }

    private Map<String, JsonNode> lastTotalPerUser() throws IOException {
        Map<String, JsonNode> last = new HashMap<>();
        for (ConsumerRecord<String, String> r : KafkaFixture.readAllCommitted(totals)) {
            last.put(r.key(), JSON.readTree(r.value()));
        }
        return last;
    }

    /** Every task's latest checkpoint restored from Kafka into an empty directory, every key decoded. */
    private Map<String, JsonNode> restoredStatePerUser() throws IOException {
        Map<String, JsonNode> state = new HashMap<>();
        Map<String, TaskCheckpoint> latest =
                new CheckpointReader(clients, app + "-checkpoints").latest(null, Duration.ofSeconds(30));
        assertEquals(4, latest.size());
        try (KafkaSnapshotStore store = new KafkaSnapshotStore(clients, app + "-snapshots", "test-restore");
                RocksDbBackend backend =
                        new RocksDbBackend(dir.resolve("empty"), new RocksDbSettings(8 << 20, 4 << 20))) {
            for (TaskCheckpoint c : latest.values()) {
                try (StateStore s = backend.open(
                        c.task(), "verify", new RestorePoint(c.task(), c.checkpointId(), c.state()), store)) {
                    for (Iterator<Map.Entry<byte[], byte[]>> it = s.scan(new byte[0]); it.hasNext(); ) {
                        // Through text, so numbers compare as the emitted JSON does (int vs long nodes).
                        Map.Entry<byte[], byte[]> e = it.next();
                        Object[] row = new io.weir.operators.Accumulators(3).deserialize(e.getValue());
                        // State key: 0x01, name length, "aggregate", key length (4 bytes), key.
                        String user = new String(e.getKey(), 15, e.getKey().length - 15, StandardCharsets.UTF_8);
                        state.put(
                                user,
                                JSON.readTree("{\"user\":\"" + user + "\",\"count\":" + row[0] + ",\"sum\":" + row[1]
                                        + ",\"lastSeq\":" + row[2] + "}"));
                    }
                }
            }
        }
        return state;
    }
}
