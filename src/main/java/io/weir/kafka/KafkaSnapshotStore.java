package io.weir.kafka;

import io.weir.state.Crc32c;
import io.weir.state.SnapshotStore;
import io.weir.state.StoredFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import java.util.zip.CRC32C;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code kafka} snapshot store: a file is cut into chunks of at most 1 MiB written to the
 * compacted topic {@code <app>-snapshots} under the key {@code task/file/chunk}, each with its
 * CRC32C in a {@code crc32c} header. All chunks of a file go to one partition (chosen by the file
 * name), so they lie close together and a restore reads them nearly sequentially. The returned
 * {@link StoredFile} records the partition and offset of every chunk, so a restore seeks straight
 * to them instead of scanning; deleting a file writes tombstones for its chunk keys, which
 * compaction then removes with the chunks.
 *
 * <p>Chunks are written by an idempotent producer with {@code acks=all}, and a write returns only
 * when every chunk is acknowledged: durable before the checkpoint that names it can commit. Names
 * are unique per upload, so a chunk key is written once and compaction never removes a live chunk.
 *
 * <p>Threading: writes and deletes from any thread (the producer is thread-safe); reads are
 * serialised on the one reading consumer; each listing uses a consumer of its own.
 */
public final class KafkaSnapshotStore implements SnapshotStore {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaSnapshotStore.class);
    static final int CHUNK = 1 << 20;
    static final String CRC_HEADER = "crc32c";

    private final String topic;
    private final KafkaClients clients;
    private final String clientId;
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> reader;
    private volatile int partitions;

    public KafkaSnapshotStore(KafkaClients clients, String topic, String clientId) {
        this.topic = topic;
        this.clients = clients;
        this.clientId = clientId;
        this.producer = clients.idempotentProducer(clientId + "-snapshots");
        this.reader = clients.snapshotReader(clientId + "-snapshot-reader");
    }

    @Override
    public StoredFile write(String name, byte[] content) throws IOException {
        return send(name, new ByteArrayInputStream(content));
    }

    @Override
    public StoredFile write(String name, Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return send(name, in);
        }
    }

    private StoredFile send(String name, InputStream in) throws IOException {
        int partition = partitionOf(name);
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        CRC32C crc = new CRC32C();
        long size = 0;
        try {
            for (int i = 0; ; i++) {
                byte[] chunk = in.readNBytes(CHUNK);
                if (chunk.length == 0 && i > 0) {
                    break;
                }
                crc.update(chunk);
                size += chunk.length;
                RecordHeaders headers = new RecordHeaders();
                headers.add(new RecordHeader(
                        CRC_HEADER,
                        ByteBuffer.allocate(8).putLong(Crc32c.of(chunk)).array()));
                // send blocks while the producer's buffer is full: the upload's memory stays bounded.
                sent.add(producer.send(new ProducerRecord<>(topic, partition, key(name, i), chunk, headers)));
                if (chunk.length < CHUNK) {
                    break;
                }
            }
            List<String> locations = new ArrayList<>(sent.size());
            for (Future<RecordMetadata> f : sent) {
                RecordMetadata m = f.get();
                locations.add(m.partition() + "@" + m.offset());
            }
            return new StoredFile(name, size, crc.getValue(), locations);
        } catch (ExecutionException e) {
            throw new IOException(
                    "writing snapshot file " + name + " to " + topic + " failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException | InterruptException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted writing " + name);
        }
    }

    /**
     * Makes the reader ready for the first restore: learns where the topic's partitions are,
     * connects to their leaders and fetches once at their ends (nothing is read). A joining
     * member's first download of ~50 KB of state took 340–610 ms with a fresh reader, 165–250 ms
     * with one connected ahead (ManyInstancesIT's logs). An instance without local state (a new pod)
     * calls this on a thread of its own while it starts, so a restore that comes
     * meanwhile waits for it (reads are serialised) and then finds the reader connected. A failure
     * only leaves the reader as it was: the first download connects then. It gives up after 5 s in
     * all, so a restore never waits longer behind it.
     */
    public synchronized void connectAhead() {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        try {
            List<TopicPartition> all = new ArrayList<>();
            reader.partitionsFor(topic, left(deadline)).forEach(p -> all.add(new TopicPartition(topic, p.partition())));
            reader.assign(all);
            reader.seekToEnd(all);
            for (TopicPartition tp : all) {
                reader.position(tp, left(deadline));
            }
            reader.poll(Duration.ofMillis(Math.min(100, left(deadline).toMillis())));
        } catch (RuntimeException e) {
            LOG.debug("connecting the snapshot reader ahead failed; the first download connects", e);
        } finally {
            try {
                reader.unsubscribe();
            } catch (RuntimeException e) {
                LOG.debug("the snapshot reader is closed", e);
            }
        }
    }

    private static Duration left(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    /** Open connections of the reader; for tests. */
    synchronized double readerConnections() {
        return reader.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals("connection-count")
                        && e.getKey().group().equals("consumer-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .sum();
    }

    @Override
    public synchronized byte[] read(StoredFile file) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.toIntExact(file.size()));
        new ChunkReader(reader, topic).copy(file, out);
        return out.toByteArray();
    }

    @Override
    public synchronized void download(StoredFile file, Path target) throws IOException {
        boolean done = false;
        try (OutputStream out = Files.newOutputStream(target)) {
            new ChunkReader(reader, topic).copy(file, out);
            done = true;
        } finally {
            if (!done) {
                Files.deleteIfExists(target);
            }
        }
    }

    @Override
    public synchronized void downloadAll(Map<StoredFile, Path> files) throws IOException {
        new ChunkReader(reader, topic).copyAll(files);
    }

    @Override
    public void delete(StoredFile file) throws IOException {
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (int i = 0; i < file.locations().size(); i++) {
            int partition = ChunkReader.partition(file.locations().get(i));
            sent.add(producer.send(new ProducerRecord<>(topic, partition, key(file.name(), i), null)));
        }
        try {
            for (Future<RecordMetadata> f : sent) {
                f.get();
            }
        } catch (ExecutionException e) {
            throw new IOException(
                    "deleting snapshot file " + file.name() + " from " + topic + " failed: " + e.getCause(),
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted deleting " + file.name());
        }
    }

    @Override
    public List<StoredFile> list(Predicate<String> names) throws IOException {
        try (KafkaConsumer<byte[], byte[]> scanner = clients.snapshotReader(clientId + "-snapshot-scan")) {
            return new SnapshotTopicScan(scanner, topic).files(names);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
        synchronized (this) {
            reader.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }

    private int partitionOf(String name) {
        if (partitions == 0) {
            partitions = producer.partitionsFor(topic).size();
        }
        return Utils.toPositive(Utils.murmur2(name.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    static byte[] key(String name, int chunk) {
        return (name + "/" + chunk).getBytes(StandardCharsets.UTF_8);
    }
}
