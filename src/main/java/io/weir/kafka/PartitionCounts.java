package io.weir.kafka;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.element.InputPartition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The partition counts a job's keyed state is split by, kept in {@code <app>-checkpoints} under
 * the key {@value #KEY} (a JSON object of topic → count, written once, without a transaction). A
 * key's state lives in the task of the partition the key hashes to; with another partition count
 * keys hash elsewhere and their tasks would start them from zero. So a job whose input or
 * repartition topics changed their count since its checkpoints were taken is refused at start.
 *
 * <p>The counts are read by the instance's {@link CheckpointReader} at the start of the instance,
 * beside its other checks: that one read of the checkpoint topic is the one the first restore then
 * only continues.
 */
public final class PartitionCounts {
    /** Not a task name: those end in {@code -<partition>}. */
    public static final String KEY = "_partition-counts";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KafkaClients clients;
    private final String topic;
    private final CheckpointReader reader;
    private final int depth;

    /**
     * Reads the recorded counts with {@code reader}, the instance's reader of the checkpoint topic,
     * keeping {@code depth} checkpoints per task: the read a restore then continues from.
     */
    public PartitionCounts(KafkaClients clients, String checkpointTopic, CheckpointReader reader, int depth) {
        this.clients = clients;
        this.topic = checkpointTopic;
        this.reader = reader;
        this.depth = depth;
    }

    /**
     * Compares {@code current} with the counts recorded, and records them when none are (or when
     * topics were added to the job); throws when a topic's count changed.
     */
    public void check(Map<String, Integer> current, Duration timeout) throws IOException {
        check(current, scan(timeout));
    }

    /**
     * Starts reading the recorded counts on a thread of its own, so the read overlaps the other
     * start-up checks; {@link #check(Map, Duration, CompletableFuture)} takes its result. (The
     * topic may not exist yet on a first start: then the check reads again.)
     */
    public CompletableFuture<Scan> scanAsync(Duration timeout) {
        CompletableFuture<Scan> scan = new CompletableFuture<>();
        Thread t = new Thread(
                () -> {
                    try {
                        scan.complete(scan(timeout));
                    } catch (Throwable e) {
                        scan.completeExceptionally(e);
                    }
                },
                "weir-partition-counts");
        t.setDaemon(true);
        t.start();
        return scan;
    }

    /** {@link #check(Map, Duration)} with a read started by {@link #scanAsync}. */
    public void check(Map<String, Integer> current, Duration timeout, CompletableFuture<Scan> started)
            throws IOException {
        Scan scan;
        try {
            scan = started.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading the partition counts", e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            scan = scan(timeout); // e.g. the checkpoint topic was created after the read began
        }
        check(current, scan);
    }

    /**
     * {@link #check(Map, Duration, CompletableFuture)} on a thread of its own, so it overlaps what
     * the caller does next; {@link Pending#await} gives its outcome.
     */
    public Pending checkAsync(Map<String, Integer> current, Duration timeout, CompletableFuture<Scan> started) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread t = new Thread(
                () -> {
                    try {
                        check(current, timeout, started);
                        done.complete(null);
                    } catch (Throwable e) {
                        done.completeExceptionally(e);
                    }
                },
                "weir-partition-counts-check");
        t.setDaemon(true);
        t.start();
        return new Pending(done);
    }

    /** A check started by {@link #checkAsync}. */
    public static final class Pending {
        private final CompletableFuture<Void> done;

        private Pending(CompletableFuture<Void> done) {
            this.done = done;
        }

        /** Waits for the check; throws what it found wrong (a {@link Topics.StartupException} on a changed count). */
        public void await() throws IOException {
            try {
                done.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while checking the partition counts", e);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof IOException io) {
                    throw io;
                }
                if (e.getCause() instanceof RuntimeException re) {
                    throw re;
                }
                throw new IOException("cannot check the partition counts", e.getCause());
            }
        }
    }

    private void check(Map<String, Integer> current, Scan scan) throws IOException {
        Map<String, Integer> recorded = scan.counts.orElse(Map.of());
        for (Map.Entry<String, Integer> e : new TreeMap<>(current).entrySet()) {
            Integer before = recorded.get(e.getKey());
            if (before != null && !before.equals(e.getValue()) && scan.hasCheckpoints) {
                throw new Topics.StartupException(
                        changed(e.getKey(), Integer.toString(e.getValue()), before) + ". " + REMEDY);
            }
        }
        Map<String, Integer> merged = new TreeMap<>(recorded);
        merged.putAll(current);
        if (!merged.equals(recorded)) {
            write(merged);
        }
    }

    /** What the errors of a changed partition count tell the operator to do. */
    static final String REMEDY = "Stop every instance and run `weir rescale` to re-split the state by the new count;"
            + " or recreate the topic with the partition count of the checkpoints (Kafka cannot remove partitions),"
            + " or start the job afresh under a new application name (the state is then lost)";

    /** The error of a topic whose partition count is not the one the job's state was split by. */
    static String changed(String topic, String now, int before) {
        return "topic " + topic + " has " + now + " partitions, but the job's checkpoints were taken with " + before
                + ": its keys would move to other tasks and their state start from zero";
    }

    /**
     * The error for an assignment that holds a partition beyond the count this instance started with
     * ({@code started}: topic → count), or null. A member refuses such a partition whoever assigned it
     * (a leader that started after the change, or one of an older version, does not refuse it).
     */
    public static String beyond(Collection<InputPartition> assigned, Map<String, Integer> started) {
        for (InputPartition ip : new TreeSet<>(assigned)) {
            Integer before = started.get(ip.topic());
            if (before != null && ip.partition() >= before) {
                return changed(ip.topic(), "more than " + before, before) + " (partition " + ip.partition()
                        + " was assigned). This instance stopped instead of running it. " + REMEDY;
            }
        }
        return null;
    }

    /** What a read of the checkpoint topic found. */
    public record Scan(Optional<Map<String, Integer>> counts, boolean hasCheckpoints) {}

    /**
     * The last recorded counts, read with the instance's checkpoint reader (read_committed: the
     * counts are written without a transaction, so only a crashed predecessor's open transaction
     * before them hides them, until the first producers abort it; the check then sees the counts
     * before them and records the current ones again).
     */
    private Scan scan(Duration timeout) throws IOException {
        CheckpointReader.Recorded recorded = reader.recorded(depth, timeout);
        Optional<Map<String, Integer>> counts = recorded.partitionCounts() == null
                ? Optional.empty()
                : Optional.of(JSON.readValue(recorded.partitionCounts(), new TypeReference<Map<String, Integer>>() {}));
        return new Scan(counts, recorded.anyCheckpoint());
    }

    /** The counts last recorded in the checkpoint topic; empty when none are. */
    public Optional<Map<String, Integer>> recorded(Duration timeout) throws IOException {
        return scan(timeout).counts();
    }

    /** The record of {@code counts} in {@code checkpointTopic}: the check's, and {@code weir rescale}'s. */
    public static ProducerRecord<byte[], byte[]> record(String checkpointTopic, Map<String, Integer> counts)
            throws IOException {
        return new ProducerRecord<>(
                checkpointTopic, KEY.getBytes(StandardCharsets.UTF_8), JSON.writeValueAsBytes(new TreeMap<>(counts)));
    }

    private void write(Map<String, Integer> counts) throws IOException {
        try (KafkaProducer<byte[], byte[]> producer = clients.idempotentProducer(topic + "-partition-counts")) {
            producer.send(record(topic, counts)).get(Topics.adminTimeout().toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IOException("cannot record the partition counts in " + topic + ": " + e, e);
        }
    }
}
