package io.weir.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.checkpoint.TaskCheckpoint;
import io.weir.element.InputPartition;
import io.weir.fixtures.KafkaFixture;
import io.weir.state.StateHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** The checkpoint topic as a restore reads it, on the real broker. */
class CheckpointReaderIT {

    private static TaskCheckpoint checkpoint(String task, long id, long position) {
        return new TaskCheckpoint(
                task, id, id * 1000, Map.of(new InputPartition("orders", 0), position), StateHandle.EMPTY);
    }

    /** Appends the records unfenced, as at-least-once (and a zombie) does. */
    private static void append(String topic, TaskCheckpoint... checkpoints) {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                KafkaFixture.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (TaskCheckpoint c : checkpoints) {
                producer.send(new ProducerRecord<>(
                        topic, c.task().getBytes(StandardCharsets.UTF_8), CheckpointRecords.encode(c)));
            }
        }
    }

    @Test
    void aZombiesOlderCheckpointWrittenAfterTheNewOwnersDoesNotWin() throws Exception {
        String topic = KafkaFixture.createTopic(KafkaFixture.uniqueTopic("checkpoints"), 1);
        // The old owner completed 4 and 5, paused; the new owner restored 5 and completed 6 and 7;
        // then the old owner resumed and wrote its checkpoint 6 before it learned it lost the task.
        append(
                topic,
                checkpoint("t-0", 4, 40),
                checkpoint("t-0", 5, 50),
                checkpoint("t-0", 6, 61),
                checkpoint("t-0", 7, 71),
                checkpoint("t-0", 6, 60),
                checkpoint("t-1", 3, 30));
        CheckpointReader reader = new CheckpointReader(KafkaClients.of(KafkaFixture.bootstrap()), topic);

        Map<String, TaskCheckpoint> latest = reader.latest(null, Duration.ofSeconds(30));
        assertEquals(7, latest.get("t-0").checkpointId());
        assertEquals(71L, latest.get("t-0").positions().get(new InputPartition("orders", 0)));
        assertEquals(3, latest.get("t-1").checkpointId());
        assertEquals(
                List.of(5L, 6L, 7L),
                reader.history(null, 3, Duration.ofSeconds(30)).get("t-0").stream()
                        .map(TaskCheckpoint::checkpointId)
                        .toList());
    }

    @Test
    void theStartsReadFindsThePartitionCountsAndTheRestoreAfterItReadsOnlyWhatWasAppendedSince() throws Exception {
        String topic = KafkaFixture.createTopic(KafkaFixture.uniqueTopic("checkpoints"), 1);
        try (CheckpointReader reader = new CheckpointReader(KafkaClients.of(KafkaFixture.bootstrap()), topic)) {
            CheckpointReader.Recorded nothing = reader.recorded(3, Duration.ofSeconds(30));
            assertNull(nothing.partitionCounts());
            assertFalse(nothing.anyCheckpoint());

            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                    KafkaFixture.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
                producer.send(new ProducerRecord<>(
                        topic,
                        PartitionCounts.KEY.getBytes(StandardCharsets.UTF_8),
                        "{\"orders\":2}".getBytes(StandardCharsets.UTF_8)));
            }
            append(topic, checkpoint("t-0", 1, 10));
            CheckpointReader.Recorded recorded = reader.recorded(3, Duration.ofSeconds(30));
            assertEquals("{\"orders\":2}", new String(recorded.partitionCounts(), StandardCharsets.UTF_8));
            assertTrue(recorded.anyCheckpoint());

            long readAtStart = reader.recordsRead();
            append(topic, checkpoint("t-0", 2, 20));
            List<TaskCheckpoint> history = reader.history(java.util.Set.of("t-0"), 3, Duration.ofSeconds(30))
                    .get("t-0");
            assertEquals(
                    List.of(1L, 2L),
                    history.stream().map(TaskCheckpoint::checkpointId).toList());
            assertEquals(1, reader.recordsRead() - readAtStart, "the restore read the topic again");
        }
    }

    @Test
    void followingReadsWhatWasAppendedSoTheNextRestoreReadsNothingAndItNeverStartsAReadItself() throws Exception {
        String topic = KafkaFixture.createTopic(KafkaFixture.uniqueTopic("checkpoints"), 1);
        try (CheckpointReader reader = new CheckpointReader(KafkaClients.of(KafkaFixture.bootstrap()), topic)) {
            append(topic, checkpoint("t-0", 1, 10));
            assertFalse(reader.follow(Duration.ofSeconds(30)), "a reader that never read followed");
            assertEquals(0, reader.recordsRead());
            assertEquals(
                    1,
                    reader.history(null, 2, Duration.ofSeconds(30)).get("t-0").size());
            assertEquals(1, reader.recordsRead());

            append(topic, checkpoint("t-0", 2, 20), checkpoint("t-1", 1, 5), checkpoint("t-0", 3, 30));
            assertTrue(reader.follow(Duration.ofSeconds(30)));
            assertEquals(4, reader.recordsRead(), "the follow did not read what was appended");
            Map<String, List<TaskCheckpoint>> history = reader.history(null, 2, Duration.ofSeconds(30));
            assertEquals(4, reader.recordsRead(), "the restore after a follow read again");
            assertEquals(
                    List.of(2L, 3L),
                    history.get("t-0").stream()
                            .map(TaskCheckpoint::checkpointId)
                            .toList());
            assertEquals(1, history.get("t-1").get(0).checkpointId());

            // A follow out of time keeps what it had: the next read goes on, it does not start over.
            append(topic, checkpoint("t-0", 4, 40));
            assertFalse(reader.follow(Duration.ZERO), "a follow without time read to the end");
            assertEquals(
                    4L,
                    reader.history(null, 2, Duration.ofSeconds(30))
                            .get("t-0")
                            .get(1)
                            .checkpointId());
            assertEquals(5, reader.recordsRead(), "the read after a follow out of time started over");
        }
    }

    @Test
    void ofTwoRecordsOfOneCheckpointTheLaterWins() throws Exception {
        String topic = KafkaFixture.createTopic(KafkaFixture.uniqueTopic("checkpoints"), 1);
        append(topic, checkpoint("t-0", 5, 50), checkpoint("t-0", 6, 60), checkpoint("t-0", 6, 66));
        CheckpointReader reader = new CheckpointReader(KafkaClients.of(KafkaFixture.bootstrap()), topic);

        List<TaskCheckpoint> history =
                reader.history(null, 3, Duration.ofSeconds(30)).get("t-0");

        assertEquals(
                List.of(5L, 6L),
                history.stream().map(TaskCheckpoint::checkpointId).toList());
        assertEquals(66L, history.get(1).positions().get(new InputPartition("orders", 0)));
    }

    @Test
    void aLaterReadReadsOnlyWhatWasAppendedSinceAndSeesWhatAFreshReaderSees() throws Exception {
        String topic = KafkaFixture.createTopic(KafkaFixture.uniqueTopic("checkpoints"), 2);
        append(topic, checkpoint("t-0", 1, 10), checkpoint("t-1", 1, 11), checkpoint("t-2", 1, 12));
        KafkaClients clients = KafkaClients.of(KafkaFixture.bootstrap());
        try (CheckpointReader kept = new CheckpointReader(clients, topic)) {
            assertEquals(
                    1, kept.history(null, 2, Duration.ofSeconds(30)).get("t-0").size());
            assertEquals(3, kept.recordsRead());

            // A new checkpoint, a zombie's older one, the same id again, a task removed, a new task.
            append(
                    topic,
                    checkpoint("t-0", 2, 20),
                    checkpoint("t-0", 1, 19),
                    checkpoint("t-1", 1, 111),
                    checkpoint("t-3", 1, 13));
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                    KafkaFixture.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
                producer.send(new ProducerRecord<>(topic, "t-2".getBytes(StandardCharsets.UTF_8), null));
            }
            Map<String, List<TaskCheckpoint>> again = kept.history(null, 2, Duration.ofSeconds(30));

            assertEquals(3 + 5, kept.recordsRead(), "the second read reads the five new records only");
            try (CheckpointReader fresh = new CheckpointReader(clients, topic)) {
                assertEquals(fresh.history(null, 2, Duration.ofSeconds(30)), again);
            }
            assertEquals(
                    List.of(1L, 2L),
                    again.get("t-0").stream().map(TaskCheckpoint::checkpointId).toList());
            assertEquals(111L, again.get("t-1").get(0).positions().get(new InputPartition("orders", 0)));
            assertEquals(java.util.Set.of("t-0", "t-1", "t-3"), again.keySet());
            assertEquals(
                    Map.of("t-3", again.get("t-3")), kept.history(java.util.Set.of("t-3"), 2, Duration.ofSeconds(30)));
            assertEquals(
                    List.of(2L),
                    kept.history(null, 1, Duration.ofSeconds(30)).get("t-0").stream()
                            .map(TaskCheckpoint::checkpointId)
                            .toList(),
                    "a smaller depth returns the latest ones");
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(90)
    void closingEndsAReadThatWaitsForAnUnreachableBrokerAndLaterReadsFail() throws Exception {
        CheckpointReader reader = new CheckpointReader(KafkaClients.of("127.0.0.1:1"), "nowhere-checkpoints");
        java.util.concurrent.CompletableFuture<Throwable> failed = new java.util.concurrent.CompletableFuture<>();
        Thread reading = new Thread(() -> {
            try {
                reader.history(null, 1, Duration.ofMinutes(5));
                failed.complete(null);
            } catch (Throwable t) {
                failed.complete(t);
            }
        });
        reading.start();
        org.awaitility.Awaitility.await("the read is under way")
                .atMost(Duration.ofSeconds(30))
                .until(() ->
                        reading.getState() == Thread.State.TIMED_WAITING || reading.getState() == Thread.State.WAITING);

        reader.close();

        Throwable t = failed.get(30, java.util.concurrent.TimeUnit.SECONDS); // not the read's five minutes
        assertEquals(org.apache.kafka.common.errors.WakeupException.class, t == null ? null : t.getClass());
        java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(
                java.io.IOException.class, () -> reader.history(null, 1, Duration.ofSeconds(1)));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    @Test
    void aReadThatFailsMidwayForgetsWhatWasKeptAndAFreshReadStartsOver() throws Exception {
        String topic = KafkaFixture.createTopic(KafkaFixture.uniqueTopic("checkpoints"), 1);
        append(topic, checkpoint("t-0", 1, 10), checkpoint("t-1", 1, 11));
        try (CheckpointReader reader = new CheckpointReader(KafkaClients.of(KafkaFixture.bootstrap()), topic)) {
            reader.history(null, 2, Duration.ofSeconds(30));
            assertEquals(2, reader.recordsRead());
            append(topic, checkpoint("t-0", 2, 20), checkpoint("t-1", 2, 21), checkpoint("t-2", 1, 12));

            // No time at all: the read cannot reach the end and fails (before or after reading some).
            org.junit.jupiter.api.Assertions.assertThrows(
                    Exception.class, () -> reader.history(null, 2, Duration.ZERO));
            long afterFailure = reader.recordsRead();
            Map<String, List<TaskCheckpoint>> after = reader.history(null, 2, Duration.ofSeconds(30));
            assertEquals(5, reader.recordsRead() - afterFailure, "the read after a failure starts from the beginning");
            assertEquals(
                    List.of(1L, 2L),
                    after.get("t-0").stream().map(TaskCheckpoint::checkpointId).toList());

            long beforeFresh = reader.recordsRead();
            assertEquals(after, reader.freshHistory(null, 2, Duration.ofSeconds(30)));
            assertEquals(5, reader.recordsRead() - beforeFresh, "a fresh read reads everything again");
        }
    }
}
