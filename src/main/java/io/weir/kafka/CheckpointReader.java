package io.weir.kafka;

import io.weir.checkpoint.TaskCheckpoint;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads the latest committed checkpoint of tasks from {@code <app>-checkpoints}: the compacted
 * topic read read_committed from the beginning to its end. A task's checkpoint ids only grow, so
 * the highest id wins, not the last record: at-least-once writes these records without a
 * transaction, and a paused instance (a zombie) resuming after another took its tasks over can
 * append an older checkpoint after the new owner's; taking it would restore stale state, or stall
 * a reader that waits for the id the committed offsets name. Of two records with the same id (the
 * zombie and the new owner both completed it) the later one wins; either is a consistent pair of
 * state and positions.
 */
public final class CheckpointReader {
    private final KafkaClients clients;
    private final String topic;

    public CheckpointReader(KafkaClients clients, String topic) {
        this.clients = clients;
        this.topic = topic;
    }

    /** The latest checkpoint of each of {@code tasks} (all tasks when null) that has one. */
    public Map<String, TaskCheckpoint> latest(Set<String> tasks, Duration timeout) throws IOException {
        Map<String, TaskCheckpoint> latest = new HashMap<>();
        history(tasks, 1, timeout).forEach((task, h) -> latest.put(task, h.get(h.size() - 1)));
        return latest;
    }

    /**
     * Up to the last {@code depth} checkpoints of each of {@code tasks} (all when null), oldest
     * first: what retention keeps. Compaction may already have removed older records, so a task
     * may have fewer; the last one is always its latest.
     */
    public Map<String, List<TaskCheckpoint>> history(Set<String> tasks, int depth, Duration timeout)
            throws IOException {
        Map<String, Deque<TaskCheckpoint>> history = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = clients.reader(topic + "-reader", true)) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
            if (infos == null || infos.isEmpty()) {
                throw new IOException("checkpoint topic " + topic + " does not exist");
            }
            List<TopicPartition> parts = infos.stream()
                    .map(i -> new TopicPartition(topic, i.partition()))
                    .collect(Collectors.toList());
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts, timeout);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!reachedEnd(consumer, end)) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("reading " + topic + " to its end took longer than " + timeout);
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.key() == null) {
                        continue;
                    }
                    String task = new String(r.key(), StandardCharsets.UTF_8);
                    if (PartitionCounts.KEY.equals(task) || (tasks != null && !tasks.contains(task))) {
                        continue;
                    }
                    if (r.value() == null) {
                        history.remove(task);
                    } else {
                        Deque<TaskCheckpoint> h = history.computeIfAbsent(task, t -> new ArrayDeque<>());
                        TaskCheckpoint c = CheckpointRecords.decode(r.value());
                        long newest = h.isEmpty() ? 0 : h.peekLast().checkpointId();
                        if (c.checkpointId() < newest) {
                            continue; // older than what this task already completed: a zombie's
                        }
                        if (c.checkpointId() == newest) {
                            h.removeLast();
                        }
                        h.addLast(c);
                        if (h.size() > depth) {
                            h.removeFirst();
                        }
                    }
                }
            }
        }
        Map<String, List<TaskCheckpoint>> result = new HashMap<>();
        history.forEach((task, h) -> result.put(task, List.copyOf(h)));
        return result;
    }

    private static boolean reachedEnd(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }
}
