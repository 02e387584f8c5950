package io.weir.bench;

import io.weir.checkpoint.TaskCheckpoint;
import io.weir.element.InputPartition;
import io.weir.kafka.CheckpointReader;
import io.weir.kafka.CheckpointRecords;
import io.weir.kafka.EmbeddedKafka;
import io.weir.kafka.KafkaClients;
import io.weir.kafka.Topics;
import io.weir.state.StateHandle;
import io.weir.state.StoredFile;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * What a restore pays to read the checkpoint topic: a fresh reader (a new consumer reading the
 * whole topic, as every restore did) against the instance's kept reader (only what was appended
 * since its last read), on a topic holding {@code rounds} checkpoints of {@code tasks} tasks — ten
 * minutes of 1 s checkpoints before compaction may run is 600 rounds. Each measured read follows
 * one new round. Prints the median of {@code repeats} reads each and their ratio.
 *
 * <p>Usage: {@code CheckpointReadBench [tasks] [rounds] [repeats]} (defaults 12, 600, 7).
 */
public final class CheckpointReadBench {
    public static void main(String[] args) throws Exception {
        int tasks = args.length > 0 ? Integer.parseInt(args[0]) : 12;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 600;
        int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 7;
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            KafkaClients clients = KafkaClients.of(kafka.bootstrapServers());
            String topic = "bench-checkpoints";
            try (var admin = clients.admin("bench")) {
                new Topics(admin, -1).ensureInternal(topic, "bench-snapshots");
            }
            try (KafkaProducer<byte[], byte[]> producer = clients.idempotentProducer("bench-writer");
                    CheckpointReader kept = new CheckpointReader(clients, topic)) {
                long id = 1;
                for (; id <= rounds; id++) {
                    round(producer, topic, tasks, id);
                }
                producer.flush();
                kept.history(null, 3, Duration.ofSeconds(60)); // its first read: the whole topic
                long[] fresh = new long[repeats];
                long[] incremental = new long[repeats];
                for (int i = 0; i < repeats; i++) {
                    round(producer, topic, tasks, id++);
                    producer.flush();
                    long t0 = System.nanoTime();
                    try (CheckpointReader reader = new CheckpointReader(clients, topic)) {
                        reader.history(null, 3, Duration.ofSeconds(60));
                    }
                    long t1 = System.nanoTime();
                    kept.history(null, 3, Duration.ofSeconds(60));
                    long t2 = System.nanoTime();
                    fresh[i] = t1 - t0;
                    incremental[i] = t2 - t1;
                }
                long f = median(fresh);
                long k = median(incremental);
                System.out.printf(
                        "checkpoint topic with %d tasks x %d rounds: fresh read %.1f ms, kept reader %.1f ms (%.3fx)%n",
                        tasks, rounds, f / 1e6, k / 1e6, (double) k / f);
            }
        }
    }

    /** One checkpoint of every task, each with a state handle of ten files, as a RocksDB task writes. */
    private static void round(KafkaProducer<byte[], byte[]> producer, String topic, int tasks, long id) {
        for (int t = 0; t < tasks; t++) {
            String task = "bench-" + t;
            List<StoredFile> files = new ArrayList<>();
            for (int f = 0; f < 10; f++) {
                files.add(new StoredFile(
                        task + "/g1/" + id + "/0000" + f + ".sst", 4096 + f, 17L * f, List.of("0@" + (id * 10 + f))));
            }
            TaskCheckpoint c = new TaskCheckpoint(
                    task,
                    id,
                    System.currentTimeMillis(),
                    Map.of(new InputPartition("orders", t), id * 1000),
                    new StateHandle("rocksdb", files));
            producer.send(
                    new ProducerRecord<>(topic, task.getBytes(StandardCharsets.UTF_8), CheckpointRecords.encode(c)));
        }
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
