package io.weir.app;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.config.ConfigLoader;
import io.weir.config.WeirConfig;
import io.weir.fixtures.Instances;
import io.weir.fixtures.KafkaFixture;
import io.weir.kafka.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The join examples on the real broker: a lookup reads its table from the beginning, in timestamp
 * order with the stream, follows its changes and keeps it in the checkpoint across a restart; topics
 * with different partition counts are refused at start, naming both.
 */
@ExtendWith(KafkaFixture.class)
class JoinJobsIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aLookupReadsItsTableInTimeOrderWithTheStreamAndKeepsItAcrossARestart() throws Exception {
        lookupInTimeOrderAcrossARestart("exactly-once");
    }

    /** The same under at-least-once: barriers are tracked across the two inputs, not aligned. */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void underAtLeastOnceTheTwoInputsTrackBarriersAndTheLookupIsTheSame() throws Exception {
        lookupInTimeOrderAcrossARestart("at-least-once");
    }

    private void lookupInTimeOrderAcrossARestart(String guarantee) throws Exception {
        String app = KafkaFixture.uniqueTopic("lookup");
        String orders = KafkaFixture.createTopic(app + "-orders", 2);
        String customers = KafkaFixture.createTopic(app + "-customers", 2);
        String out = app + "-out";
        long t0 = System.currentTimeMillis() - 3_600_000;
        // Everything is on the broker before the job starts; the orders come first in the topic
        // order but not in time: each must see the customer as it was at its own time.
        KafkaFixture.produce(List.of(
                order(orders, 0, "c1", "o1", t0 + 2_000),
                order(orders, 0, "c1", "o2", t0 + 4_000),
                order(orders, 1, "c2", "o3", t0 + 7_000),
                customer(customers, 0, "c1", "{\"tier\":\"gold\"}", t0 + 1_000),
                customer(customers, 0, "c1", "{\"tier\":\"platinum\"}", t0 + 3_000),
                customer(customers, 1, "c2", "{\"tier\":\"silver\"}", t0 + 5_000),
                customer(customers, 1, "c2", null, t0 + 6_000)));
        WeirConfig config = load(
                app,
                "pipeline.0.source.topic=" + orders,
                "pipeline.1.lookup.table.topic=" + customers,
                "pipeline.3.sink.topic=" + out,
                "processing.guarantee=" + guarantee,
                "processing.auto-offset-reset=earliest");
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            Instances.awaitUntil(instance, Duration.ofSeconds(60), () -> Instances.committed(out) >= 2);
            // Graceful: a last checkpoint covers what was read, so at-least-once repeats nothing.
            instance.stopGracefully(Duration.ofSeconds(30));
        }
        assertEquals(
                Map.of("o1", "gold", "o2", "platinum"),
                tiers(out),
                "o1 before the upgrade, o2 after it, o3's customer deleted before it (inner: dropped)");

        // Restarted: the table is in the checkpoint, not read again, and still current.
        KafkaFixture.produce(List.of(
                order(orders, 0, "c1", "o4", t0 + 8_000),
                customer(customers, 1, "c2", "{\"tier\":\"bronze\"}", t0 + 9_000),
                order(orders, 1, "c2", "o5", t0 + 10_000)));
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            Instances.awaitUntil(instance, Duration.ofSeconds(60), () -> Instances.committed(out) >= 4);
            instance.stopGracefully(Duration.ofSeconds(30));
        }
        assertEquals(Map.of("o1", "gold", "o2", "platinum", "o4", "platinum", "o5", "bronze"), tiers(out));
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aBackloggedTableReadAheadOfTheStreamGivesEachOrderTheVersionOfItsTime() throws Exception {
        // Both topics full before the start, table versions interleaved in time with the orders: the
        // first barrier comes after a few hundred orders, and while it holds the orders back the
        // table is read on to its own barrier, far ahead in time.
        String app = KafkaFixture.uniqueTopic("lookup-backlog");
        String orders = KafkaFixture.createTopic(app + "-orders", 1);
        String customers = KafkaFixture.createTopic(app + "-customers", 1);
        long t0 = System.currentTimeMillis() - 3_600_000;
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        Map<String, java.util.TreeMap<Long, String>> versions = new java.util.HashMap<>();
        for (int i = 0; i < 40; i++) {
            String c = "c" + (i % 5);
            long ts = t0 + 200L * i + 5;
            records.add(customer(customers, 0, c, "{\"tier\":\"v" + i + "\"}", ts));
            versions.computeIfAbsent(c, k -> new java.util.TreeMap<>()).put(ts, "v" + i);
        }
        Map<String, String> expected = new java.util.TreeMap<>();
        for (int i = 0; i < 800; i++) {
            String c = "c" + (i % 5);
            long ts = t0 + 10L * i;
            records.add(order(orders, 0, c, "o" + i, ts));
            Map.Entry<Long, String> version = versions.get(c).floorEntry(ts);
            if (version != null) {
                expected.put("o" + i, version.getValue());
            }
        }
        assertEquals(expected, enrichBacklog(app, orders, customers, records, expected.size()));
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aBackloggedTableBehindTheStreamInTimeIsReadBeforeTheOrdersItPrecedes() throws Exception {
        // Both topics full before the start, every table version older than every order: the table
        // partition's first fetch may come after the first barrier went in behind the orders' first
        // records, and each barrier cuts the table after fewer versions than the orders need. Held
        // at such a barrier while the orders went on to theirs, the table gave the first orders no
        // version or an old one (inner: dropped).
        String app = KafkaFixture.uniqueTopic("lookup-behind");
        String orders = KafkaFixture.createTopic(app + "-orders", 1);
        String customers = KafkaFixture.createTopic(app + "-customers", 1);
        long t0 = System.currentTimeMillis() - 3_600_000;
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = 0; i < 1_500; i++) {
            records.add(customer(customers, 0, "c" + (i % 5), "{\"tier\":\"v" + i + "\"}", t0 + i));
        }
        Map<String, String> expected = new java.util.TreeMap<>();
        for (int i = 0; i < 1_000; i++) {
            String c = "c" + (i % 5);
            records.add(order(orders, 0, c, "o" + i, t0 + 10_000 + 10L * i));
            expected.put("o" + i, "v" + (1_495 + i % 5)); // the customer's last version
        }
        assertEquals(expected, enrichBacklog(app, orders, customers, records, expected.size()));
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aTableIsReadFromItsBeginningWhenTheStreamStartsAtItsEnd() throws Exception {
        String app = KafkaFixture.uniqueTopic("lookup-latest");
        String orders = KafkaFixture.createTopic(app + "-orders", 1);
        String customers = KafkaFixture.createTopic(app + "-customers", 1);
        String out = app + "-out";
        long t0 = System.currentTimeMillis() - 3_600_000;
        KafkaFixture.produce(List.of(
                order(orders, 0, "c1", "before-start", t0), customer(customers, 0, "c1", "{\"tier\":\"gold\"}", t0)));
        WeirConfig config = load(
                app,
                "pipeline.0.source.topic=" + orders,
                "pipeline.1.lookup.table.topic=" + customers,
                "pipeline.3.sink.topic=" + out,
                "processing.auto-offset-reset=latest");
        int[] sent = {0};
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            // Orders until one gets through: those sent before the job found its start positions
            // are skipped (latest), the customer written before the start is not.
            Instances.awaitUntil(instance, Duration.ofSeconds(60), () -> {
                KafkaFixture.produce(List.of(order(orders, 0, "c1", "o" + sent[0]++, t0 + sent[0])));
                return Instances.committed(out) >= 1;
            });
        }
        Map<String, String> tiers = tiers(out);
        assertTrue(!tiers.containsKey("before-start"), "the stream started at its end: " + tiers);
        assertTrue(!tiers.isEmpty() && tiers.values().stream().allMatch("gold"::equals), tiers.toString());
    }

    /**
     * A left join whose payments topic receives nothing: the payments partition holds the task's
     * watermark until idle-after, then the orders' watermark closes their windows and the timers send
     * them with payment null — long after the last input was read, when the source loop skips
     * barriers for lack of input. Their transaction must still commit (the epoch was written), not
     * stay open until the broker aborts it.
     */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void anIdleJoinedTopicStopsHoldingTheWatermarkAndTimerOutputWithoutInputCommits() throws Exception {
        String app = KafkaFixture.uniqueTopic("join-idle");
        String orders = KafkaFixture.createTopic(app + "-orders", 1);
        String payments = KafkaFixture.createTopic(app + "-payments", 1);
        String out = app + "-out";
        long t0 = System.currentTimeMillis() - 3_600_000;
        List<ProducerRecord<String, String>> input = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            long ts = t0 + i * 60_000L;
            input.add(new ProducerRecord<>(orders, 0, ts, "o" + i, "{\"order\":\"o" + i + "\",\"ts\":" + ts + "}"));
        }
        KafkaFixture.produce(input);
        List<String> sets = new ArrayList<>(List.of(
                "kafka.bootstrap=" + KafkaFixture.bootstrap(),
                "application=" + app,
                "instance-id=" + app,
                "processing.checkpoint.interval=200ms",
                "processing.state.dir=" + temp.resolve("state"),
                "pipeline.0.source.topic=" + orders,
                "pipeline.0.source.watermark.idle-after=3s",
                "pipeline.1.join.with.topic=" + payments,
                "pipeline.1.join.within=1m",
                "pipeline.2.sink.topic=" + out));
        WeirConfig config = new ConfigLoader().load(Path.of("config/examples", "order-payments.yaml"), Map.of(), sets);
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            // Watermark after idleness: t0 + 4 min - 5 s, so o0..o2 (window over at ts + 1 min) close.
            Instances.awaitUntil(instance, Duration.ofSeconds(60), () -> Instances.committed(out) >= 3);
        }
        List<String> unmatched = new ArrayList<>();
        for (ConsumerRecord<String, String> r : KafkaFixture.readAllCommitted(out)) {
            JsonNode v = JSON.readTree(r.value());
            assertTrue(v.get("payment").isNull(), v.toString());
            unmatched.add(v.get("order").asText());
        }
        assertEquals(List.of("o0", "o1", "o2"), unmatched);
    }

    /**
     * A graceful stop while both inputs still have records on the broker: the task must not wait for
     * an empty input that is no longer fetched, so the last checkpoint covers everything it read.
     */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aGracefulStopWithInputLeftOnBothTopicsCommitsEverythingRead() throws Exception {
        String app = KafkaFixture.uniqueTopic("lookup-drain");
        String orders = KafkaFixture.createTopic(app + "-orders", 1);
        String customers = KafkaFixture.createTopic(app + "-customers", 1);
        String out = app + "-out";
        long t0 = System.currentTimeMillis() - 3_600_000;
        List<ProducerRecord<String, String>> input = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            // Interleaved in time: the task alternates between the two topics.
            input.add(customer(customers, 0, "c" + i % 100, "{\"tier\":\"t" + i + "\"}", t0 + 2L * i));
            input.add(order(orders, 0, "c" + i % 100, "o" + i, t0 + 2L * i + 1));
        }
        KafkaFixture.produce(input);
        WeirConfig config = load(
                app,
                "pipeline.0.source.topic=" + orders,
                "pipeline.1.lookup.table.topic=" + customers,
                "pipeline.3.sink.topic=" + out,
                "processing.checkpoint.interval=10s",
                "processing.channel-capacity=64");
        Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config));
        try {
            instance.start();
            Instances.awaitUntil(
                    instance,
                    Duration.ofSeconds(60),
                    () -> instance.counters().recordsIn.sum() >= 2_000);
            instance.stopGracefully(Duration.ofSeconds(30));
        } finally {
            instance.close();
        }
        long read = instance.counters().recordsIn.sum();
        assertTrue(read < 200_000, "stopped while input was left: " + read);
        // Everything the job wrote before it stopped was committed by its last checkpoint; a
        // read_committed reader sees it once the broker wrote the commit's markers, which it does
        // after answering the commit. What the stop aborted would never appear.
        long written = instance.counters().recordsOut.sum();
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertEquals(written, Instances.committed(out), "read " + read));
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void topicsWithDifferentPartitionCountsAreRefusedNamingBoth() throws Exception {
        String app = KafkaFixture.uniqueTopic("lookup-counts");
        String orders = KafkaFixture.createTopic(app + "-orders", 4);
        String customers = KafkaFixture.createTopic(app + "-customers", 3);
        WeirConfig config = load(
                app,
                "pipeline.0.source.topic=" + orders,
                "pipeline.1.lookup.table.topic=" + customers,
                "pipeline.3.sink.topic=" + app + "-out");
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            Topics.StartupException e = assertThrows(Topics.StartupException.class, instance::start);
            assertTrue(
                    e.getMessage().contains(orders + " has 4 partitions")
                            && e.getMessage().contains(customers + " has 3 partitions"),
                    e.getMessage());
        }
    }

    private Map<String, String> tiers(String topic) throws Exception {
        Map<String, String> tiers = new java.util.TreeMap<>();
        for (ConsumerRecord<String, String> r : KafkaFixture.readAllCommitted(topic)) {
            JsonNode v = JSON.readTree(r.value());
            String previous = tiers.put(v.get("order").asText(), v.get("tier").asText());
            assertEquals(null, previous, "each order once: " + v);
        }
        return tiers;
    }

    private static ProducerRecord<String, String> order(
            String topic, int partition, String customer, String id, long ts) {
        return new ProducerRecord<>(topic, partition, ts, customer, "{\"order\":\"" + id + "\",\"amount\":1}");
    }

    private static ProducerRecord<String, String> customer(
            String topic, int partition, String customer, String value, long ts) {
        return new ProducerRecord<>(topic, partition, ts, customer, value);
    }

    /**
     * Writes {@code records} (orders and customers) before the start, runs the enrichment job from
     * the beginning until {@code count} orders are committed, and returns each order's tier.
     */
    private Map<String, String> enrichBacklog(
            String app, String orders, String customers, List<ProducerRecord<String, String>> records, int count)
            throws Exception {
        String out = app + "-out";
        KafkaFixture.produce(records);
        WeirConfig config = load(
                app,
                "pipeline.0.source.topic=" + orders,
                "pipeline.1.lookup.table.topic=" + customers,
                "pipeline.3.sink.topic=" + out,
                "processing.auto-offset-reset=earliest");
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            Instances.awaitUntil(instance, Duration.ofSeconds(60), () -> Instances.committed(out) >= count);
            instance.stopGracefully(Duration.ofSeconds(30));
        }
        return tiers(out);
    }

    private WeirConfig load(String app, String... extra) throws Exception {
        List<String> sets = new ArrayList<>(List.of(
                "kafka.bootstrap=" + KafkaFixture.bootstrap(),
                "application=" + app,
                "instance-id=" + app,
                "processing.checkpoint.interval=200ms",
                "processing.state.dir=" + temp.resolve("state")));
        sets.addAll(List.of(extra));
        return new ConfigLoader().load(Path.of("config/examples", "order-enrichment.yaml"), Map.of(), sets);
    }
}
