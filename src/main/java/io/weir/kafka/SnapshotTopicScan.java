package io.weir.kafka;

import io.weir.state.StoredFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Lists the files in {@code <app>-snapshots} by reading it from the beginning to the end it had when
 * the scan started: the latest record of each chunk key decides whether the chunk is live (a value)
 * or deleted (a tombstone). Files written after the scan started are not listed, which is what lets
 * a caller sweep orphans while new uploads go on.
 *
 * <p>Threading: one use, on the caller's thread, with a consumer of its own.
 */
final class SnapshotTopicScan {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private record Chunk(int partition, long offset, int size, boolean live) {}

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String topic;

    SnapshotTopicScan(KafkaConsumer<byte[], byte[]> consumer, String topic) {
        this.consumer = consumer;
        this.topic = topic;
    }

    List<StoredFile> files(Predicate<String> names) throws IOException {
        List<PartitionInfo> infos = KafkaClients.partitionsOf(consumer, topic, TIMEOUT);
        if (infos.isEmpty()) {
            throw new IOException("snapshot topic " + topic + " does not exist");
        }
        List<TopicPartition> parts = infos.stream()
                .map(i -> new TopicPartition(topic, i.partition()))
                .toList();
        consumer.assign(parts);
        consumer.seekToBeginning(parts);
        Map<TopicPartition, Long> end = consumer.endOffsets(parts, TIMEOUT);
        Map<String, TreeMap<Integer, Chunk>> files = new HashMap<>();
        long deadline = System.nanoTime() + TIMEOUT.toNanos() * 10;
        while (!reachedEnd(end)) {
            if (System.nanoTime() > deadline) {
                throw new IOException(
                        "scanning " + topic + " to " + end + " took longer than " + TIMEOUT.multipliedBy(10));
            }
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                if (r.key() == null || r.offset() >= end.get(new TopicPartition(topic, r.partition()))) {
                    continue;
                }
                String key = new String(r.key(), StandardCharsets.UTF_8);
                int slash = key.lastIndexOf('/');
                if (slash <= 0 || !names.test(key.substring(0, slash))) {
                    continue;
                }
                int index;
                try {
                    index = Integer.parseInt(key.substring(slash + 1));
                } catch (NumberFormatException e) {
                    continue; // not a chunk key: nothing Weir wrote
                }
                files.computeIfAbsent(key.substring(0, slash), n -> new TreeMap<>())
                        .put(
                                index,
                                new Chunk(
                                        r.partition(),
                                        r.offset(),
                                        r.value() == null ? 0 : r.value().length,
                                        r.value() != null));
            }
        }
        List<StoredFile> listed = new ArrayList<>();
        files.forEach((name, chunks) -> {
            if (chunks.values().stream().anyMatch(Chunk::live)) {
                listed.add(file(name, chunks));
            }
        });
        return listed;
    }

    /** Locations for every chunk index up to the last seen, so a delete tombstones them all. */
    private static StoredFile file(String name, TreeMap<Integer, Chunk> chunks) {
        List<String> locations = new ArrayList<>();
        long size = 0;
        Chunk last = chunks.firstEntry().getValue();
        for (int i = 0; i <= chunks.lastKey(); i++) {
            Chunk c = chunks.getOrDefault(i, last);
            locations.add(c.partition() + "@" + c.offset());
            size += chunks.containsKey(i) ? c.size() : 0;
            last = c;
        }
        return new StoredFile(name, size, 0, locations);
    }

    private boolean reachedEnd(Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }
}
