package io.weir.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.config.ConfigLoader;
import io.weir.config.WeirConfig;
import io.weir.fixtures.ExamplePlugin;
import io.weir.fixtures.Instances;
import io.weir.fixtures.KafkaFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The example jobs of the pipeline language on the real broker, read back read_committed. */
@ExtendWith(KafkaFixture.class)
class PipelineJobsIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void theRoutingJobFiltersReshapesAndRoutesEachOrderToOneTopic() throws Exception {
        String app = KafkaFixture.uniqueTopic("routing");
        String orders = KafkaFixture.createTopic(app + "-orders", 2);
        List<ProducerRecord<String, String>> input = new ArrayList<>();
        int large = 0, u1 = 0, other = 0;
        for (int i = 0; i < 300; i++) {
            String user = "u" + (i % 30);
            long amount = i % 100;
            input.add(new ProducerRecord<>(
                    orders, user, "{\"user\":\"" + user + "\",\"amount\":" + amount + ",\"seq\":" + i + "}"));
            if (amount <= 0) {
                continue;
            }
            if (amount >= 90) {
                large++;
            } else if (user.startsWith("u1")) {
                u1++;
            } else {
                other++;
            }
        }
        input.add(new ProducerRecord<>(orders, "u1", "{\"user\":\"u1\",\"seq\":1000}"));
        KafkaFixture.produce(input);
        WeirConfig config = load(
                "orders-routing.yaml",
                app,
                "pipeline.0.source.topic=" + orders,
                "pipeline.3.route.0.sink.topic=" + app + "-large",
                "pipeline.3.route.1.sink.topic=" + app + "-u1",
                "pipeline.3.route.2.default.topic=" + app + "-other");
        int expected = large + u1 + other;
        runUntil(
                config,
                () -> Instances.committed(app + "-large")
                                        + Instances.committed(app + "-u1")
                                        + Instances.committed(app + "-other")
                                >= expected
                        && Instances.committed(app + "-dlq") >= 1);
        assertEquals(large, Instances.committed(app + "-large"));
        assertEquals(u1, Instances.committed(app + "-u1"));
        assertEquals(other, Instances.committed(app + "-other"));
        for (ConsumerRecord<String, String> r : KafkaFixture.readAllCommitted(app + "-large")) {
            JsonNode v = JSON.readTree(r.value());
            assertEquals(v.get("amount").asLong() * 100, v.get("cents").asLong());
            assertEquals("large", v.get("size").asText());
            assertTrue(!v.has("seq"), "seq is dropped");
        }
        ConsumerRecord<String, String> dead =
                KafkaFixture.readAllCommitted(app + "-dlq").get(0);
        assertEquals(
                "pipeline.1.filter",
                new String(dead.headers().lastHeader("weir.step").value()));
        assertEquals(
                "value.amount > 0",
                new String(dead.headers().lastHeader("weir.expression").value()));
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void theCustomOperatorJobRunsTheOperatorFromItsPluginJar() throws Exception {
        Path plugins = ExamplePlugin.build(temp);
        String app = KafkaFixture.uniqueTopic("fraud");
        String orders = KafkaFixture.createTopic(app + "-orders", 2);
        List<ProducerRecord<String, String>> input = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            input.add(
                    new ProducerRecord<>(orders, "c" + i, "{\"customer\":\"c" + i + "\",\"amount\":" + (i * 50) + "}"));
        }
        KafkaFixture.produce(input);
        WeirConfig config = new ConfigLoader()
                .load(
                        Path.of("examples/custom-operator/job.yaml"),
                        Map.of(),
                        overrides(
                                app,
                                "pipeline.0.source.topic=" + orders,
                                "pipeline.2.sink.topic=" + app + "-flagged",
                                "processing.plugins=" + plugins));
        runUntil(config, () -> Instances.committed(app + "-flagged") >= 50);
        int flagged = 0;
        for (ConsumerRecord<String, String> r : KafkaFixture.readAllCommitted(app + "-flagged")) {
            JsonNode v = JSON.readTree(r.value());
            assertEquals(v.get("amount").asLong() > 1000, v.get("flagged").asBoolean(), v.toString());
            flagged += v.get("flagged").asBoolean() ? 1 : 0;
        }
        assertEquals(29, flagged);
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aTextSourceIsReadAsTextWhenAMapReplacesItsValueAndTheNextStageReadsJson() throws Exception {
        String app = KafkaFixture.uniqueTopic("lines");
        String lines = KafkaFixture.createTopic(app + "-lines", 2);
        List<ProducerRecord<String, String>> input = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            input.add(new ProducerRecord<>(lines, "k" + i, "line {" + (i % 10)));
        }
        KafkaFixture.produce(input);
        WeirConfig config = written(
                """
                application: lines
                kafka: { bootstrap: localhost:9092 }
                pipeline:
                  - source: { topic: lines, format: string }
                  - map: { value: "{'text': value}" }
                  - key-by: value.text
                  - map: { value: "value.text + '!'" }
                  - sink: { topic: out, format: string }
                """,
                app,
                "pipeline.0.source.topic=" + lines,
                "pipeline.4.sink.topic=" + app + "-out");
        runUntil(config, () -> Instances.committed(app + "-out") >= 100);
        List<ConsumerRecord<String, String>> out = KafkaFixture.readAllCommitted(app + "-out");
        assertEquals(100, out.size());
        for (ConsumerRecord<String, String> r : out) {
            assertEquals(r.key() + "!", r.value(), "the value is the text of the line the key holds");
            assertTrue(r.key().matches("line \\{[0-9]"), r.key());
        }
        assertEquals(0, Instances.committed(app + "-dlq"), "no dead letters");
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aKeyByWithItsOwnPartitionCountRepartitionsIntoThatManyAndTheTotalsStayExact() throws Exception {
        String app = KafkaFixture.uniqueTopic("three");
        String orders = KafkaFixture.createTopic(app + "-orders", 2);
        List<ProducerRecord<String, String>> input = new ArrayList<>();
        Map<String, Long> sums = new java.util.HashMap<>();
        for (int i = 0; i < 300; i++) {
            String user = "u" + (i % 30);
            input.add(new ProducerRecord<>(orders, "order-" + i, "{\"user\":\"" + user + "\",\"amount\":" + i + "}"));
            sums.merge(user, (long) i, Long::sum);
        }
        KafkaFixture.produce(input);
        WeirConfig config = written(
                """
                application: three
                kafka: { bootstrap: localhost:9092 }
                pipeline:
                  - source: { topic: orders, format: json }
                  - key-by: { by: value.user, partitions: 3 }
                  - aggregate: { by: key, key-as: user, count: n, sum: { amount: total } }
                  - sink: { topic: totals, format: json }
                """,
                app,
                "pipeline.0.source.topic=" + orders,
                "pipeline.3.sink.topic=" + app + "-totals");
        runUntil(config, () -> Instances.committed(app + "-totals") >= 300);
        assertEquals(
                3,
                KafkaFixture.admin()
                        .describeTopics(List.of(app + "-repartition-1"))
                        .allTopicNames()
                        .get()
                        .get(app + "-repartition-1")
                        .partitions()
                        .size());
        // Purged up to what every checkpoint read, it frees disk by segment: small ones.
        var repartition = new org.apache.kafka.common.config.ConfigResource(
                org.apache.kafka.common.config.ConfigResource.Type.TOPIC, app + "-repartition-1");
        var settings = KafkaFixture.admin()
                .describeConfigs(List.of(repartition))
                .all()
                .get()
                .get(repartition);
        assertEquals("52428800", settings.get("segment.bytes").value());
        assertEquals("600000", settings.get("segment.ms").value());
        assertEquals("-1", settings.get("retention.ms").value());
        Map<String, JsonNode> last = new java.util.HashMap<>();
        List<ConsumerRecord<String, String>> out = KafkaFixture.readAllCommitted(app + "-totals");
        assertEquals(300, out.size());
        for (ConsumerRecord<String, String> r : out) {
            last.put(r.key(), JSON.readTree(r.value()));
        }
        assertEquals(sums.keySet(), last.keySet());
        sums.forEach((user, sum) -> {
            assertEquals(10, last.get(user).get("n").asLong(), user);
            assertEquals(sum, last.get(user).get("total").asLong(), user);
        });
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aRecordWhoseTimestampTheSinkTopicRefusesIsADeadLetterAndTheOthersAreWritten() throws Exception {
        // The broker refuses a record more than message.timestamp.after.max.ms (an hour by default)
        // ahead of its clock, and the batch with it: sent, it failed the epoch after every restart
        // and nothing of the partition was written again.
        String app = KafkaFixture.uniqueTopic("future");
        String events = KafkaFixture.createTopic(app + "-events", 1);
        long now = System.currentTimeMillis();
        KafkaFixture.produce(List.of(
                new ProducerRecord<>(events, "a", "{\"n\":1,\"ts\":" + now + "}"),
                new ProducerRecord<>(events, "a", "{\"n\":2,\"ts\":" + (now + 2 * 3_600_000) + "}"),
                new ProducerRecord<>(events, "a", "{\"n\":3,\"ts\":" + now + "}")));
        WeirConfig config = written(
                """
                application: future
                kafka: { bootstrap: localhost:9092 }
                pipeline:
                  - source: { topic: events, format: json, timestamp: "value.ts" }
                  - filter: "true"
                  - sink: { topic: out, format: json }
                """,
                app,
                "pipeline.0.source.topic=" + events,
                "pipeline.2.sink.topic=" + app + "-out");
        runUntil(config, () -> Instances.committed(app + "-out") >= 2 && Instances.committed(app + "-dlq") >= 1);
        List<ConsumerRecord<String, String>> out = KafkaFixture.readAllCommitted(app + "-out");
        assertEquals(
                List.of(1L, 3L),
                out.stream()
                        .map(r -> {
                            try {
                                return JSON.readTree(r.value()).get("n").asLong();
                            } catch (java.io.IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        })
                        .toList());
        ConsumerRecord<String, String> dead =
                KafkaFixture.readAllCommitted(app + "-dlq").get(0);
        assertTrue(dead.value().contains("\"n\":2"), dead.value());
        assertEquals(
                "pipeline.2.sink",
                new String(dead.headers().lastHeader("weir.step").value()));
        String error = new String(dead.headers().lastHeader("weir.error").value());
        assertTrue(error.contains("ahead of the clock") && error.contains("message.timestamp.after.max.ms"), error);
        // Made by Weir, the sink and the dead-letter topic keep what they get for good: records of old
        // event time would otherwise go minutes after they were written.
        for (String topic : List.of(app + "-out", app + "-dlq")) {
            var resource = new org.apache.kafka.common.config.ConfigResource(
                    org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic);
            var settings = KafkaFixture.admin()
                    .describeConfigs(List.of(resource))
                    .all()
                    .get()
                    .get(resource);
            assertEquals("-1", settings.get("retention.ms").value(), topic);
        }
    }

    /** A job written here (not an example), loaded with the overrides every job of this class gets. */
    private WeirConfig written(String yaml, String app, String... extra) throws Exception {
        Path job = java.nio.file.Files.writeString(temp.resolve(app + ".yaml"), yaml);
        return new ConfigLoader().load(job, Map.of(), overrides(app, extra));
    }

    /**
     * Opens once, as the start checks it, then fails to open in every task (a resource it needs is
     * missing where the tasks run, say).
     */
    public static final class OpensOnlyOnce implements io.weir.api.Processor {
        static final java.util.concurrent.atomic.AtomicInteger OPENED = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public void open(io.weir.api.ProcessorContext context) {
            if (OPENED.incrementAndGet() > 1) {
                throw new IllegalStateException(
                        "the service behind limit " + context.settings().string("limit", "") + " is not there");
            }
        }

        @Override
        public void process(io.weir.api.Record record, io.weir.api.Output out) {
            out.emit(record.value());
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aCustomOperatorThatCannotOpenStopsTheJobWithItsMessage() throws Exception {
        String app = KafkaFixture.uniqueTopic("unopened");
        String orders = KafkaFixture.createTopic(app + "-orders", 2);
        KafkaFixture.produce(List.of(new ProducerRecord<>(orders, "u1", "{\"user\":\"u1\",\"amount\":1}")));
        Path job = temp.resolve("job.yaml");
        java.nio.file.Files.writeString(
                job,
                "application: " + app + "\n"
                        + "pipeline:\n"
                        + "  - source: { topic: " + orders + " }\n"
                        + "  - process: { class: " + OpensOnlyOnce.class.getName() + ", with: { limit: lots } }\n"
                        + "  - sink: { topic: " + app + "-out }\n");
        WeirConfig config = new ConfigLoader().load(job, Map.of(), overrides(app));
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            // Not failed over again and again: no restart can make the setting right.
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(instance::stopped);
            Throwable fatal = instance.awaitTermination();
            assertTrue(
                    String.valueOf(fatal)
                            .contains("pipeline.1.process: custom operator " + OpensOnlyOnce.class.getName()
                                    + " failed to open"),
                    String.valueOf(fatal));
            assertTrue(String.valueOf(fatal).contains("the service behind limit lots"), String.valueOf(fatal));
        }
    }

    private WeirConfig load(String example, String app, String... extra) throws Exception {
        return new ConfigLoader().load(Path.of("config/examples", example), Map.of(), overrides(app, extra));
    }

    private List<String> overrides(String app, String... extra) {
        List<String> sets = new ArrayList<>(List.of(
                "kafka.bootstrap=" + KafkaFixture.bootstrap(),
                "application=" + app,
                "instance-id=" + app,
                "processing.checkpoint.interval=200ms",
                "processing.state.dir=" + temp.resolve("state")));
        sets.addAll(List.of(extra));
        return sets;
    }

    private static void runUntil(WeirConfig config, BooleanSupplier done) throws Exception {
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            Instances.awaitUntil(instance, Duration.ofSeconds(90), done);
        }
    }
}
