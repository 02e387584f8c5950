package io.weir.kafka;

import io.weir.fixtures.KafkaFixture;
import io.weir.state.Crc32c;
import io.weir.state.SnapshotStore;
import io.weir.state.SnapshotStoreContract;
import io.weir.state.StoredFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
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

    /**
     * Writes the file's last chunk again with one byte flipped but the original chunk's checksum
     * header, and points at it: the chunks before it are intact, so a download has written them
     * when it meets the damage (and must not leave them behind).
     */
    @Override
    protected StoredFile damage(StoredFile file) throws Exception {
        int last = file.locations().size() - 1;
        byte[] content = store.read(file);
        byte[] chunk = Arrays.copyOfRange(content, last * KafkaSnapshotStore.CHUNK, content.length);
        long crc = Crc32c.of(chunk);
        chunk[chunk.length / 2] ^= 1;
        RecordHeaders headers = new RecordHeaders();
        headers.add(
                new RecordHeader("crc32c", ByteBuffer.allocate(8).putLong(crc).array()));
        try (KafkaProducer<byte[], byte[]> p = clients.idempotentProducer("damage")) {
            RecordMetadata m = p.send(new ProducerRecord<>(
                            topic,
                            ChunkReader.partition(file.locations().get(last)),
                            (file.name() + "/" + last).getBytes(StandardCharsets.UTF_8),
                            chunk,
                            headers))
                    .get();
            List<String> locations = new ArrayList<>(file.locations());
            locations.set(last, m.partition() + "@" + m.offset());
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

    @Test
    void connectingAheadOpensTheReadersConnectionsBeforeAnyReadAndReadsStillWork() throws Exception {
        StoredFile file = store.write(task + "/ahead/a", random(3000, 7));
        try (KafkaSnapshotStore fresh = new KafkaSnapshotStore(clients, topic, "store-it-ahead")) {
            org.junit.jupiter.api.Assertions.assertEquals(0.0, fresh.readerConnections(), "a fresh reader");
            fresh.connectAhead();
            org.junit.jupiter.api.Assertions.assertTrue(
                    fresh.readerConnections() > 0, "connected: " + fresh.readerConnections());
            fresh.downloadAll(Map.of(file, dir.resolve("ahead")));
            org.junit.jupiter.api.Assertions.assertArrayEquals(
                    random(3000, 7), Files.readAllBytes(dir.resolve("ahead")));
        }
    }

    @Test
    void connectingAheadAfterTheCloseThrowsNothing() {
        KafkaSnapshotStore closed = new KafkaSnapshotStore(clients, topic, "store-it-closed");
        closed.close();
        org.junit.jupiter.api.Assertions.assertDoesNotThrow(closed::connectAhead);
    }

    @Test
    void filesOfOnePartitionFarApartDownloadTogether() throws Exception {
        StoredFile a = store.write(task + "/far/a", random(5000, 40));
        int partition = ChunkReader.partition(a.locations().get(0));
        // More records of other files between the two than the reader reads through: it seeks.
        int between = 0;
        for (int i = 0; between <= 20; i++) {
            StoredFile filler = store.write(task + "/far/filler-" + i, random(100, 100 + i));
            if (ChunkReader.partition(filler.locations().get(0)) == partition) {
                between++;
            }
        }
        StoredFile b = null;
        byte[] bContent = null;
        for (int i = 0; b == null; i++) {
            byte[] content = random(3000, 200 + i);
            StoredFile candidate = store.write(task + "/far/b-" + i, content);
            if (ChunkReader.partition(candidate.locations().get(0)) == partition) {
                b = candidate;
                bContent = content;
            }
        }
        Map<StoredFile, Path> targets = new LinkedHashMap<>();
        targets.put(b, dir.resolve("b"));
        targets.put(a, dir.resolve("a"));

        store.downloadAll(targets);

        org.junit.jupiter.api.Assertions.assertArrayEquals(random(5000, 40), Files.readAllBytes(dir.resolve("a")));
        org.junit.jupiter.api.Assertions.assertArrayEquals(bContent, Files.readAllBytes(dir.resolve("b")));
    }
}
