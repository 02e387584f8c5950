package io.weir.fault;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.fixtures.BucketTotals;
import io.weir.fixtures.KafkaFixture;
import io.weir.fixtures.WeirProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The pipeline language's stateful jobs under {@code kill -9}: the two-stage bucket totals (exactly
 * once across the repartition topic) and the dedupe job, each in a child JVM killed at random
 * moments and restarted, then checked against the input on the read_committed output.
 */
@ExtendWith(KafkaFixture.class)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class PipelineKillIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int PARTITIONS = 4;
    private static final int USERS = 500;
    private static final int KILLS = 3;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void bucket_totals_across_a_repartition_topic_count_every_order_once_through_three_kills() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String app = KafkaFixture.uniqueTopic("kill-buckets");
        String orders = KafkaFixture.createTopic(app + "-orders", PARTITIONS);
        String out = KafkaFixture.createTopic(app + "-out", PARTITIONS);
        int count = 200_000;
        BucketTotals expected = new BucketTotals();
        try (KafkaProducer<String, String> producer = producer()) {
            for (int i = 0; i < count; i++) {
                int user = random.nextInt(USERS);
                long amount = 1 + random.nextInt(100);
                expected.order(amount);
                producer.send(new ProducerRecord<>(
                        orders,
                        "u" + user,
                        "{\"user\":\"u" + user + "\",\"amount\":" + amount + ",\"seq\":" + i + "}"));
            }
        }
        runWithKills(
                app,
                "bucket-totals.yaml",
                List.of("pipeline.0.source.topic=" + orders, "pipeline.3.sink.topic=" + out),
                out,
                count,
                random,
                seed);

        expected.verify(KafkaFixture.readAllCommitted(out), "seed " + seed);
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void dedupe_lets_each_order_through_once_although_every_order_is_sent_twice_through_three_kills() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String app = KafkaFixture.uniqueTopic("kill-dedupe");
        String orders = KafkaFixture.createTopic(app + "-orders", PARTITIONS);
        String out = KafkaFixture.createTopic(app + "-out", PARTITIONS);
        int unique = 100_000;
        try (KafkaProducer<String, String> producer = producer()) {
            for (int i = 0; i < unique; i++) {
                int user = i % USERS;
                String value = "{\"user\":\"u" + user + "\",\"amount\":1,\"seq\":" + i + "}";
                producer.send(new ProducerRecord<>(orders, "u" + user, value));
                // The duplicate follows soon after, as a producer's retry would.
                if (random.nextInt(10) == 0 || i + 1 == unique) {
                    producer.send(new ProducerRecord<>(orders, "u" + user, value));
                } else {
                    int later = i;
                    pendingDuplicates.add(
                            () -> producer.send(new ProducerRecord<>(orders, "u" + (later % USERS), value)));
                }
                if (pendingDuplicates.size() >= 50) {
                    pendingDuplicates.remove(0).run();
                }
            }
            pendingDuplicates.forEach(Runnable::run);
        }
        runWithKills(
                app,
                "dedupe-orders.yaml",
                List.of("pipeline.0.source.topic=" + orders, "pipeline.2.sink.topic=" + out),
                out,
                unique,
                random,
                seed);
        Map<Long, Integer> seen = new HashMap<>();
        for (ConsumerRecord<String, String> r : KafkaFixture.readAllCommitted(out)) {
            seen.merge(JSON.readTree(r.value()).get("seq").asLong(), 1, Integer::sum);
        }
        assertEquals(unique, seen.size(), "seed " + seed + ": distinct orders in the output");
        seen.forEach((seq, n) -> assertEquals(1, n, "seed " + seed + ": order " + seq + " in the output"));
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void a_lookup_gives_every_order_its_customers_last_version_once_through_three_kills() throws Exception {
        // Table and orders written before the start, every version older than every order: the
        // table runs past its barriers (unaligned), so restores replay table records a checkpoint
        // already holds, and its bad records' dead letters must still be written once each.
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String app = KafkaFixture.uniqueTopic("kill-lookup");
        String orders = KafkaFixture.createTopic(app + "-orders", PARTITIONS);
        String customers = KafkaFixture.createTopic(app + "-customers", PARTITIONS);
        String out = KafkaFixture.createTopic(app + "-out", PARTITIONS);
        long t0 = System.currentTimeMillis() - 3_600_000;
        int versions = 4;
        int bad = 40;
        int count = 60_000;
        Map<String, String> last = new HashMap<>();
        try (KafkaProducer<String, String> producer = producer()) {
            for (int v = 0; v < versions; v++) {
                for (int c = 0; c < USERS; c++) {
                    String tier = "t" + v + "-" + random.nextInt(1000);
                    producer.send(
                            new ProducerRecord<>(customers, null, t0 + v, "c" + c, "{\"tier\":\"" + tier + "\"}"));
                    last.put("c" + c, tier);
                }
            }
            for (int b = 0; b < bad; b++) {
                producer.send(new ProducerRecord<>(customers, null, t0 + versions, "c" + b, "not json " + b));
            }
            for (int i = 0; i < count; i++) {
                String c = "c" + random.nextInt(USERS);
                producer.send(
                        new ProducerRecord<>(orders, null, t0 + 60_000 + i, c, "{\"order\":" + i + ",\"amount\":1}"));
            }
        }
        runWithKills(
                app,
                "order-enrichment.yaml",
                List.of(
                        "pipeline.0.source.topic=" + orders,
                        "pipeline.1.lookup.table.topic=" + customers,
                        "pipeline.3.sink.topic=" + out),
                out,
                count,
                random,
                seed);
        Map<Long, Integer> seen = new HashMap<>();
        for (ConsumerRecord<String, String> r : KafkaFixture.readAllCommitted(out)) {
            JsonNode v = JSON.readTree(r.value());
            long order = v.get("order").asLong();
            seen.merge(order, 1, Integer::sum);
            assertEquals(last.get(r.key()), v.get("tier").asText(), "seed " + seed + ": order " + order);
        }
        assertEquals(count, seen.size(), "seed " + seed + ": distinct orders in the output");
        seen.forEach((order, n) -> assertEquals(1, n, "seed " + seed + ": order " + order + " in the output"));
        Map<String, Integer> dead = new HashMap<>();
        for (ConsumerRecord<String, String> r : KafkaFixture.readAllCommitted(app + "-dlq")) {
            String at = new String(r.headers().lastHeader("weir.partition").value()) + "@"
                    + new String(r.headers().lastHeader("weir.offset").value());
            dead.merge(at, 1, Integer::sum);
        }
        assertEquals(bad, dead.size(), "seed " + seed + ": bad table records dead-lettered: " + dead);
        dead.forEach((at, n) -> assertEquals(1, n, "seed " + seed + ": dead letter of " + at));
    }

    private final List<Runnable> pendingDuplicates = new ArrayList<>();

    private static KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(KafkaFixture.producerConfig(), new StringSerializer(), new StringSerializer());
    }

    /**
     * Runs the example job in a child JVM on its topics, kills it {@link #KILLS} times, each once a
     * random number of records more reached the output, restarts it, and stops it gracefully once
     * the committed output holds {@code expectedOutputs} records.
     */
    private static void runWithKills(
            String app, String example, List<String> topics, String out, long expectedOutputs, Random random, long seed)
            throws Exception {
        System.out.printf("%s: seed %d%n", app, seed);
        List<String> overrides = new ArrayList<>(List.of(
                "kafka.bootstrap=" + KafkaFixture.bootstrap(),
                "application=" + app,
                "instance-id=" + app + "-1",
                "processing.checkpoint.interval=500ms",
                "processing.state.dir=" + Path.of("target", "fault-state", app).toAbsolutePath()));
        overrides.addAll(topics);
        try (WeirProcess weir = WeirProcess.run(app, Path.of("config", "examples", example), overrides)) {
            weir.start();
            for (int kill = 0; kill < KILLS; kill++) {
                long killAt = KafkaFixture.endOffsets(out, IsolationLevel.READ_UNCOMMITTED)
                        + 1
                        + random.nextInt((int) (expectedOutputs / (KILLS + 2)));
                await(app + " writes up to " + killAt + " records before kill " + (kill + 1))
                        .atMost(Duration.ofSeconds(90))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> {
                            weir.assertAlive();
                            return KafkaFixture.endOffsets(out, IsolationLevel.READ_UNCOMMITTED) >= killAt;
                        });
                weir.kill();
                weir.start();
            }
            await(app + " commits all " + expectedOutputs + " outputs")
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> {
                        weir.assertAlive();
                        return KafkaFixture.readAllCommitted(out).size() >= expectedOutputs;
                    });
            weir.stop();
        }
    }
}
