package io.weir.kafka;

import io.weir.state.Crc32c;
import io.weir.state.StoredFile;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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

    /** One file of {@link #copyAll} being written: its target, how far it got, its checksum so far. */
    private static final class Download {
        final StoredFile file;
        final Path target;
        final CRC32C crc = new CRC32C();
        OutputStream out;
        long size;
        int chunks;
        boolean finished;

        Download(StoredFile file, Path target) {
            this.file = file;
            this.target = target;
        }
    }

    /** A chunk {@link #copyAll} still needs: chunk {@code index} of {@code download}'s file. */
    private record Wanted(Download download, int index) {}

    /**
     * Downloads each file to its target (created or replaced), reading the partitions the files lie
     * in together: one fetch brings the chunks of many files, where {@link #copy} file by file waits
     * for a fetch per file. Every check of {@link #copy} applies. On failure no target of an
     * unfinished file is left behind.
     */
    void copyAll(Map<StoredFile, Path> files) throws IOException {
        Map<TopicPartition, TreeMap<Long, List<Wanted>>> wanted = new HashMap<>();
        List<Download> downloads = new ArrayList<>();
        for (Map.Entry<StoredFile, Path> e : files.entrySet()) {
            Download d = new Download(e.getKey(), e.getValue());
            downloads.add(d);
            List<String> locations = d.file.locations();
            for (int i = 0; i < locations.size(); i++) {
                TopicPartition tp = new TopicPartition(topic, partition(locations.get(i)));
                wanted.computeIfAbsent(tp, t -> new TreeMap<>())
                        .computeIfAbsent(offset(locations.get(i)), o -> new ArrayList<>())
                        .add(new Wanted(d, i));
            }
        }
        boolean done = false;
        try {
            for (Download d : downloads) {
                if (d.file.locations().isEmpty()) {
                    finish(d); // nothing to read, yet it must be what the handle says
                }
            }
            read(wanted);
            done = true;
        } finally {
            if (!done) {
                for (Download d : downloads) {
                    if (!d.finished) {
                        closeQuietly(d);
                        Files.deleteIfExists(d.target);
                    }
                }
            }
            at = null;
            pending.clear();
            consumer.unsubscribe(); // a later copy assigns afresh, nothing paused or positioned is left
        }
    }

    /** The file's last chunk is written: close it (a restore may download thousands) and check it whole. */
    private void finish(Download d) throws IOException {
        if (d.out == null) {
            d.out = Files.newOutputStream(d.target);
        }
        d.out.close();
        if (d.size != d.file.size() || d.crc.getValue() != d.file.crc32c()) {
            throw new IOException(corrupt(
                    d.file,
                    "read " + d.size + " bytes with crc32c " + d.crc.getValue() + ", expected " + d.file.size()
                            + " bytes with crc32c " + d.file.crc32c()));
        }
        d.finished = true;
    }

    private static void closeQuietly(Download d) {
        try {
            if (d.out != null) {
                d.out.close();
            }
        } catch (IOException ignored) {
            // the target is deleted next
        }
    }

    /** Reads every wanted chunk, partitions together, each partition in offset order. */
    private void read(Map<TopicPartition, TreeMap<Long, List<Wanted>>> wanted) throws IOException {
        if (wanted.isEmpty()) {
            return;
        }
        consumer.assign(wanted.keySet());
        wanted.forEach((tp, chunks) -> consumer.seek(tp, chunks.firstKey()));
        long deadline = System.nanoTime() + CHUNK_TIMEOUT.toNanos();
        while (!wanted.isEmpty()) {
            if (System.nanoTime() > deadline) {
                Map.Entry<TopicPartition, TreeMap<Long, List<Wanted>>> e =
                        wanted.entrySet().iterator().next();
                Wanted w = e.getValue().firstEntry().getValue().get(0);
                throw new IOException(corrupt(
                        w.download().file,
                        "chunk " + w.index() + " at " + e.getKey() + "@"
                                + e.getValue().firstKey() + " not readable within " + CHUNK_TIMEOUT.toSeconds()
                                + " s"));
            }
            var records = consumer.poll(Duration.ofMillis(200));
            for (TopicPartition tp : records.partitions()) {
                TreeMap<Long, List<Wanted>> chunks = wanted.get(tp);
                if (chunks != null && take(tp, chunks, records.records(tp))) {
                    deadline = System.nanoTime() + CHUNK_TIMEOUT.toNanos(); // progress
                }
                if (chunks != null && chunks.isEmpty()) {
                    wanted.remove(tp);
                    consumer.pause(List.of(tp));
                }
            }
        }
    }

    /**
     * Writes the wanted chunks among {@code records} of {@code tp} to their files; seeks ahead when
     * the next wanted chunk is far beyond them. Returns whether any chunk was taken.
     */
    private boolean take(
            TopicPartition tp, TreeMap<Long, List<Wanted>> chunks, List<ConsumerRecord<byte[], byte[]>> records)
            throws IOException {
        boolean took = false;
        for (ConsumerRecord<byte[], byte[]> r : records) {
            if (chunks.isEmpty()) {
                return took;
            }
            long next = chunks.firstKey();
            if (r.offset() < next) {
                if (next - r.offset() > READ_THROUGH) {
                    consumer.seek(tp, next);
                    return took; // the rest of this batch lies before the next chunk
                }
                continue;
            }
            if (r.offset() > next) {
                Wanted w = chunks.firstEntry().getValue().get(0);
                throw new IOException(corrupt(
                        w.download().file,
                        "chunk " + w.index() + " at " + tp + "@" + next + " is missing (the log continues at "
                                + r.offset() + ")"));
            }
            for (Wanted w : chunks.pollFirstEntry().getValue()) {
                write(w, tp, r);
            }
            took = true;
        }
        return took;
    }

    private void write(Wanted w, TopicPartition tp, ConsumerRecord<byte[], byte[]> r) throws IOException {
        Download d = w.download();
        String where = "chunk " + w.index() + " at " + tp + "@" + r.offset();
        if (!Arrays.equals(r.key(), KafkaSnapshotStore.key(d.file.name(), w.index())) || r.value() == null) {
            throw new IOException(corrupt(d.file, where + " is missing (deleted or compacted away)"));
        }
        if (w.index() != d.chunks) {
            throw new IOException(corrupt(d.file, where + " comes before chunk " + d.chunks));
        }
        checkChunk(d.file, where, r);
        if (d.size + r.value().length > d.file.size()) {
            throw new IOException(corrupt(d.file, "its chunks hold more than " + d.file.size() + " bytes"));
        }
        if (d.out == null) {
            d.out = Files.newOutputStream(d.target);
        }
        d.out.write(r.value());
        d.crc.update(r.value());
        d.size += r.value().length;
        d.chunks++;
        if (d.chunks == d.file.locations().size()) {
            finish(d);
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
