package io.weir.kafka;

import io.weir.fixtures.KafkaFixture;
import io.weir.state.Crc32c;
import io.weir.state.SnapshotStore;
import io.weir.state.SnapshotStoreContract;
import io.weir.state.StoredFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;

/** The snapshot store contract on the Kafka store, against the real broker. */
@Timeout(120)
class KafkaSnapshotStoreIT extends SnapshotStoreContract {
    private static String topic;
    private static KafkaClients clients;
    private static KafkaSnapshotStore store;

    @BeforeAll
    static void createTopic() {
        clients = KafkaClients.of(KafkaFixture.bootstrap());
        topic = KafkaFixture.uniqueTopic("store") + "-snapshots";
        try (var admin = clients.admin("store-it")) {
            new Topics(admin, -1).ensureInternal(topic + "-checkpoints", topic);
        }
        store = new KafkaSnapshotStore(clients, topic, "store-it");
    }

    @AfterAll
    static void closeStore() {
        store.close();
    }

    @Override
    protected SnapshotStore store() {
        return store;
    }

    /** Writes a chunk 0 with flipped content but the original chunk's checksum header, and points at it. */
    @Override
    protected StoredFile damage(StoredFile file) throws Exception {
        byte[] chunk = Arrays.copyOf(store.read(file), (int) Math.min(file.size(), KafkaSnapshotStore.CHUNK));
        long crc = Crc32c.of(chunk);
        chunk[chunk.length / 2] ^= 1;
        RecordHeaders headers = new RecordHeaders();
        headers.add(
                new RecordHeader("crc32c", ByteBuffer.allocate(8).putLong(crc).array()));
        try (KafkaProducer<byte[], byte[]> p = clients.idempotentProducer("damage")) {
            RecordMetadata m = p.send(new ProducerRecord<>(
                            topic,
                            ChunkReader.partition(file.locations().get(0)),
                            (file.name() + "/0").getBytes(StandardCharsets.UTF_8),
                            chunk,
                            headers))
                    .get();
            List<String> locations = new ArrayList<>(file.locations());
            locations.set(0, m.partition() + "@" + m.offset());
            return new StoredFile(file.name(), file.size(), file.crc32c(), locations);
        }
    }

    /** Deletes the file and points at a record of another file, as if its chunk were compacted away. */
    @Override
    protected StoredFile lose(StoredFile file) throws Exception {
        store.delete(file);
        StoredFile other = store.write(task + "/other", new byte[10]);
        return new StoredFile(file.name(), file.size(), file.crc32c(), other.locations());
    }
}
