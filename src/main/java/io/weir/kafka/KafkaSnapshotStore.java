package io.weir.kafka;

import io.weir.state.SnapshotStore;
import io.weir.state.StoredFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The {@code kafka} snapshot store: a file is cut into chunks of at most 1 MiB written to the
 * compacted topic {@code <app>-snapshots} under the key {@code file/chunk}. The returned
 * {@link StoredFile} records the partition and offset of every chunk, so a restore seeks straight
 * to them instead of scanning; deleting a file writes tombstones for its chunk keys.
 *
 * <p>Chunks are written by an idempotent producer with {@code acks=all} and {@link #write} returns
 * only when every chunk is acknowledged: durable before the checkpoint that names it can commit.
 *
 * <p>Threading: writes from any thread (the producer is thread-safe); reads are serialised on the
 * one reading consumer.
 */
public final class KafkaSnapshotStore implements SnapshotStore {
    static final int CHUNK = 1 << 20;

    private final String topic;
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> reader;

    public KafkaSnapshotStore(KafkaClients clients, String topic, String clientId) {
        this.topic = topic;
        this.producer = clients.idempotentProducer(clientId + "-snapshots");
        this.reader = clients.reader(clientId + "-snapshot-reader", false);
    }

    @Override
    public StoredFile write(String name, byte[] content) throws IOException {
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        int chunks = Math.max(1, (content.length + CHUNK - 1) / CHUNK);
        for (int i = 0; i < chunks; i++) {
            byte[] chunk = Arrays.copyOfRange(content, i * CHUNK, Math.min(content.length, (i + 1) * CHUNK));
            sent.add(producer.send(new ProducerRecord<>(topic, key(name, i), chunk)));
        }
        List<String> locations = new ArrayList<>(chunks);
        try {
            for (Future<RecordMetadata> f : sent) {
                RecordMetadata m = f.get();
                locations.add(m.partition() + "@" + m.offset());
            }
        } catch (ExecutionException e) {
            throw new IOException("writing snapshot file " + name + " to " + topic + " failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.util.concurrent.CancellationException("interrupted writing " + name);
        }
        return new StoredFile(name, content.length, crc(content), locations);
    }

    @Override
    public synchronized byte[] read(StoredFile file) throws IOException {
        byte[] content = new byte[Math.toIntExact(file.size())];
        int at = 0;
        for (int i = 0; i < file.locations().size(); i++) {
            String location = file.locations().get(i);
            int sep = location.indexOf('@');
            TopicPartition tp = new TopicPartition(topic, Integer.parseInt(location.substring(0, sep)));
            long offset = Long.parseLong(location.substring(sep + 1));
            byte[] chunk = readChunk(tp, offset, file, i);
            if (at + chunk.length > content.length) {
                throw new IOException(corrupt(file, "its chunks hold more than " + file.size() + " bytes"));
            }
            System.arraycopy(chunk, 0, content, at, chunk.length);
            at += chunk.length;
        }
        if (at != content.length || crc(content) != file.crc32c()) {
            throw new IOException(corrupt(file, "read " + at + " bytes with crc32c " + crc(content) + ", expected "
                    + file.size() + " bytes with crc32c " + file.crc32c()));
        }
        return content;
    }

    private byte[] readChunk(TopicPartition tp, long offset, StoredFile file, int index) throws IOException {
        reader.assign(List.of(tp));
        reader.seek(tp, offset);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : reader.poll(Duration.ofMillis(200))) {
                if (r.offset() == offset) {
                    if (!Arrays.equals(r.key(), key(file.name(), index)) || r.value() == null) {
                        throw new IOException(corrupt(file, "chunk " + index + " at " + tp + "@" + offset
                                + " is missing (deleted or compacted away)"));
                    }
                    return r.value();
                }
                if (r.offset() > offset) {
                    throw new IOException(corrupt(file, "chunk " + index + " at " + tp + "@" + offset
                            + " is missing (the log continues at " + r.offset() + ")"));
                }
            }
        }
        throw new IOException(corrupt(file, "chunk " + index + " at " + tp + "@" + offset + " not readable within 30 s"));
    }

    @Override
    public void delete(StoredFile file) throws IOException {
        for (int i = 0; i < file.locations().size(); i++) {
            int sep = file.locations().get(i).indexOf('@');
            int partition = Integer.parseInt(file.locations().get(i).substring(0, sep));
            producer.send(new ProducerRecord<>(topic, partition, key(file.name(), i), null));
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
        synchronized (this) {
            reader.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }

    private static byte[] key(String name, int chunk) {
        return (name + "/" + chunk).getBytes(StandardCharsets.UTF_8);
    }

    private String corrupt(StoredFile file, String what) {
        return "snapshot file " + file.name() + " in " + topic + " cannot be restored: " + what;
    }

    static long crc(byte[] content) {
        CRC32C crc = new CRC32C();
        crc.update(content);
        return crc.getValue();
    }
}
