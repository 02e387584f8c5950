package io.weir.kafka;

import io.weir.state.Crc32c;
import io.weir.state.StoredFile;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * Reads the chunks of one stored file from {@code <app>-snapshots} at the locations its
 * {@link StoredFile} names, in order, checking each chunk's key and CRC32C and at the end the
 * file's size and CRC32C. Chunks of one file lie close together in one partition, so the reader
 * keeps what a fetch returned beyond the chunk it wanted and seeks only when the next chunk is not
 * a few records ahead.
 *
 * <p>Threading: one use at a time, on the thread that owns the consumer.
 */
final class ChunkReader {
    /** Records of other files between two chunks that are read through rather than seeked over. */
    private static final long READ_THROUGH = 16;

    private static final Duration CHUNK_TIMEOUT = Duration.ofSeconds(30);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String topic;
    /** Records polled but not yet looked at, of partition {@link #at}. */
    private final ArrayDeque<ConsumerRecord<byte[], byte[]>> pending = new ArrayDeque<>();

    private TopicPartition at;

    ChunkReader(KafkaConsumer<byte[], byte[]> consumer, String topic) {
        this.consumer = consumer;
        this.topic = topic;
    }

    static int partition(String location) {
        return Integer.parseInt(location.substring(0, location.indexOf('@')));
    }

    static long offset(String location) {
        return Long.parseLong(location.substring(location.indexOf('@') + 1));
    }

    void copy(StoredFile file, OutputStream out) throws IOException {
        List<String> locations = file.locations();
        CRC32C crc = new CRC32C();
        long size = 0;
        for (int i = 0; i < locations.size(); i++) {
            TopicPartition tp = new TopicPartition(topic, partition(locations.get(i)));
            long offset = offset(locations.get(i));
            position(tp, offset);
            ConsumerRecord<byte[], byte[]> r = chunk(file, i, tp, offset);
            if (size + r.value().length > file.size()) {
                throw new IOException(corrupt(file, "its chunks hold more than " + file.size() + " bytes"));
            }
            crc.update(r.value());
            size += r.value().length;
            out.write(r.value());
        }
        if (size != file.size() || crc.getValue() != file.crc32c()) {
            throw new IOException(corrupt(
                    file,
                    "read " + size + " bytes with crc32c " + crc.getValue() + ", expected " + file.size()
                            + " bytes with crc32c " + file.crc32c()));
        }
    }

    /** Seeks unless the record at {@code offset} is a few records ahead of where reading stands. */
    private void position(TopicPartition tp, long offset) {
        if (!tp.equals(at)) {
            consumer.assign(List.of(tp));
            at = tp;
            seek(tp, offset);
            return;
        }
        long next =
                pending.isEmpty() ? consumer.position(tp) : pending.peekFirst().offset();
        if (offset < next || offset - next > READ_THROUGH) {
            seek(tp, offset);
        }
    }

    private void seek(TopicPartition tp, long offset) {
        consumer.seek(tp, offset);
        pending.clear();
    }

    /** Reads on until the record at {@code offset}; records before it belong to other files. */
    private ConsumerRecord<byte[], byte[]> chunk(StoredFile file, int index, TopicPartition tp, long offset)
            throws IOException {
        String where = "chunk " + index + " at " + tp + "@" + offset;
        long deadline = System.nanoTime() + CHUNK_TIMEOUT.toNanos();
        while (true) {
            while (!pending.isEmpty()) {
                ConsumerRecord<byte[], byte[]> r = pending.pollFirst();
                if (r.offset() < offset) {
                    continue;
                }
                if (r.offset() > offset) {
                    throw new IOException(
                            corrupt(file, where + " is missing (the log continues at " + r.offset() + ")"));
                }
                if (!Arrays.equals(r.key(), KafkaSnapshotStore.key(file.name(), index)) || r.value() == null) {
                    throw new IOException(corrupt(file, where + " is missing (deleted or compacted away)"));
                }
                checkChunk(file, where, r);
                return r;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(
                        corrupt(file, where + " not readable within " + CHUNK_TIMEOUT.toSeconds() + " s"));
            }
            pending.addAll(consumer.poll(Duration.ofMillis(200)).records(tp));
        }
    }

    private void checkChunk(StoredFile file, String where, ConsumerRecord<byte[], byte[]> r) throws IOException {
        Header h = r.headers().lastHeader(KafkaSnapshotStore.CRC_HEADER);
        if (h == null) {
            return; // written before chunks carried their own checksum: the file checksum still guards it
        }
        long expected = ByteBuffer.wrap(h.value()).getLong();
        long found = Crc32c.of(r.value());
        if (expected != found) {
            throw new IOException(corrupt(file, where + " is corrupt: crc32c " + found + ", expected " + expected));
        }
    }

    private String corrupt(StoredFile file, String what) {
        return "snapshot file " + file.name() + " in " + topic + " cannot be restored: " + what;
    }
}
