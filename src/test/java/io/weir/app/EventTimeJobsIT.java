package io.weir.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.config.ConfigLoader;
import io.weir.config.WeirConfig;
import io.weir.fixtures.Instances;
import io.weir.fixtures.KafkaFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The event-time examples on the real broker: windows close as the watermark passes them, also
 * after a repartition topic (the watermark crosses it as markers, which never reach the output);
 * late records reach the side output or the dead-letter topic. (Idleness matters where a task
 * has several inputs: see JoinJobsIT.)
 */
@ExtendWith(KafkaFixture.class)
class EventTimeJobsIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void sessionsCloseAfterTheRepartitionTopicAndALateClickReachesTheSideOutput() throws Exception {
        String app = KafkaFixture.uniqueTopic("sessions");
        String clicks = KafkaFixture.createTopic(app + "-clicks", 2);
        // Recent event time: older result timestamps would fall to the topics' 7-day retention.
        long t0 = System.currentTimeMillis() / 60_000 * 60_000 - 7_200_000;
        List<ProducerRecord<String, String>> input = new ArrayList<>();
        // Both partitions carry clicks, so both upstream tasks' watermarks move.
        input.add(click(clicks, 0, "u1", t0));
        input.add(click(clicks, 1, "u2", t0 + 1_000));
        input.add(click(clicks, 0, "u1", t0 + 60_000));
        input.add(click(clicks, 1, "u2", t0 + 61_000));
        input.add(click(clicks, 0, "u3", t0 + 3_600_000));
        input.add(click(clicks, 1, "u4", t0 + 3_600_000));
        KafkaFixture.produce(input);
        WeirConfig config = load(
                "user-sessions.yaml",
                app,
                "pipeline.0.source.topic=" + clicks,
                "pipeline.2.aggregate.late.topic=" + app + "-late",
                "pipeline.3.sink.topic=" + app + "-out");
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            Instances.awaitUntil(instance, Duration.ofSeconds(60), () -> Instances.committed(app + "-out") >= 2);
            // Now a click for u1's closed session: late.
            KafkaFixture.produce(List.of(click(clicks, 0, "u1", t0 + 30_000)));
            Instances.awaitUntil(instance, Duration.ofSeconds(60), () -> Instances.committed(app + "-late") >= 1);
        }
        Map<String, JsonNode> sessions = new TreeMap<>();
        for (ConsumerRecord<String, String> r : KafkaFixture.readAllCommitted(app + "-out")) {
            JsonNode v = JSON.readTree(r.value());
            sessions.put(v.get("user").asText(), v);
        }
        assertEquals(List.of("u1", "u2"), List.copyOf(sessions.keySet()), "only the closed sessions, each once");
        assertEquals(2, sessions.get("u1").get("clicks").asLong());
        assertEquals(t0, sessions.get("u1").get("windowStart").asLong());
        assertEquals(t0 + 60_000 + 600_000, sessions.get("u1").get("windowEnd").asLong());
        ConsumerRecord<String, String> late =
                KafkaFixture.readAllCommitted(app + "-late").get(0);
        assertEquals("late", header(late, "weir.error"));
        assertEquals(t0 + 30_000, JSON.readTree(late.value()).get("ts").asLong());
        assertEquals(0, Instances.committed(app + "-dlq"), "markers and clicks never reach the dead-letter topic");
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void eachPartitionsTaskClosesItsWindowsAsItsOwnWatermarkPassesThem() throws Exception {
        String app = KafkaFixture.uniqueTopic("idle");
        String events = KafkaFixture.createTopic(app + "-events", 2);
        long t0 = System.currentTimeMillis() / 3_600_000 * 3_600_000 - 7_200_000; // minutes aligned
        List<ProducerRecord<String, String>> input = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            // Partition 1 gets nothing; its task holds nobody back: each task reads one partition.
            input.add(new ProducerRecord<>(
                    events, 0, "u1", "{\"user\":\"u1\",\"amount\":1,\"ts\":" + (t0 + i * 20_000L) + "}"));
        }
        KafkaFixture.produce(input);
        WeirConfig config = load(
                "user-counts-per-minute.yaml",
                app,
                "pipeline.0.source.topic=" + events,
                "pipeline.0.source.watermark.idle-after=1s",
                "processing.threads=1",
                "pipeline.2.sink.topic=" + app + "-out");
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            Instances.awaitUntil(instance, Duration.ofSeconds(60), () -> Instances.committed(app + "-out") >= 2);
        }
        List<ConsumerRecord<String, String>> out = KafkaFixture.readAllCommitted(app + "-out");
        assertEquals(2, out.size(), "minutes 0 and 1 closed (watermark 175 s), minute 2 is open");
        assertEquals(3, JSON.readTree(out.get(0).value()).get("count").asLong());
        assertEquals(3, JSON.readTree(out.get(1).value()).get("count").asLong());
    }

    private static ProducerRecord<String, String> click(String topic, int partition, String user, long ts) {
        String time = java.time.Instant.ofEpochMilli(ts).toString();
        return new ProducerRecord<>(
                topic,
                partition,
                "k-" + user,
                "{\"user\":\"" + user + "\",\"page\":\"home\",\"ts\":" + ts + ",\"time\":\"" + time + "\"}");
    }

    private static String header(ConsumerRecord<String, String> r, String name) {
        return new String(r.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    private WeirConfig load(String example, String app, String... extra) throws Exception {
        List<String> sets = new ArrayList<>(List.of(
                "kafka.bootstrap=" + KafkaFixture.bootstrap(),
                "application=" + app,
                "instance-id=" + app,
                "processing.checkpoint.interval=200ms",
                "processing.state.dir=" + temp.resolve("state")));
        sets.addAll(List.of(extra));
        return new ConfigLoader().load(Path.of("config/examples", example), Map.of(), sets);
    }
}
