package io.weir.kafka;

import io.weir.checkpoint.EpochOutput;
import io.weir.checkpoint.TaskCheckpoint;
import io.weir.element.InputPartition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * At-least-once output: one idempotent producer for every epoch, so output is visible at once.
 * A checkpoint commits by flushing, writing the metadata records, and then committing the source
 * offsets through the source loop; after a crash the records after the last checkpoint are
 * processed again (duplicates, never loss).
 */
public final class AtLeastOnceProducers implements EpochProducers {
    private final String checkpointTopic;
    private final KafkaProducer<byte[], byte[]> producer;
    private final BiConsumer<Map<InputPartition, Long>, Long> offsetCommitter;

    public AtLeastOnceProducers(
            KafkaClients clients,
            String clientId,
            String checkpointTopic,
            BiConsumer<Map<InputPartition, Long>, Long> offsetCommitter) {
        this.checkpointTopic = checkpointTopic;
        this.producer = clients.idempotentProducer(clientId);
        this.offsetCommitter = offsetCommitter;
    }

    @Override
    public boolean canOpenEpoch() {
        return true;
    }

    @Override
    public void openEpoch(long epoch) {}

    @Override
    public EpochOutput output(long epoch) {
        return new KafkaEpochOutput(epoch, producer);
    }

    @Override
    public void commit(
            long checkpointId, List<TaskCheckpoint> tasks, Map<InputPartition, Long> positions, Object fencingToken)
            throws Exception {
        producer.flush();
        for (TaskCheckpoint t : tasks) {
            producer.send(new ProducerRecord<>(
                            checkpointTopic, t.task().getBytes(StandardCharsets.UTF_8), CheckpointRecords.encode(t)))
                    .get();
        }
        offsetCommitter.accept(positions, checkpointId);
    }

    @Override
    public boolean abortOpen() {
        return true; // no transactions
    }

    @Override
    public void close() {
        producer.close(Duration.ZERO);
    }
}
