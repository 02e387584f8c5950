package io.weir.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Checks a running-totals job on real topics: reads every input of {@code orders} and the
 * read_committed output of {@code totals}, and compares, per user, the outputs with the running
 * totals of the inputs in input order.
 *
 * <p>Exactly-once: for each user the i-th output is {@code count = i}, {@code sum} = the sum of
 * the first i amounts, {@code lastSeq} = the i-th input's seq, and there are as many outputs as
 * inputs. At-least-once: the outputs may repeat a stretch after a restore, but every input's
 * running total appears, in order (no loss).
 */
public final class RunningTotalsVerifier {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What the verifier found; {@link #ok()} when nothing is wrong. */
    public record Result(long inputs, long outputs, long users, List<String> problems) {
        public boolean ok() {
            return problems.isEmpty();
        }

        @Override
        public String toString() {
            return (ok() ? "OK" : "FAILED") + ": " + inputs + " inputs, " + outputs + " outputs, " + users + " users"
                    + (ok()
                            ? ""
                            : ", " + problems.size() + " problems, first: "
                                    + problems.subList(0, Math.min(5, problems.size())));
        }
    }

    private record Total(long count, long sum, long lastSeq) {}

    private final String bootstrap;

    public RunningTotalsVerifier(String bootstrap) {
        this.bootstrap = bootstrap;
    }

    /** Reads both topics to their current end and compares. */
    public Result verify(String ordersTopic, String totalsTopic, boolean exactlyOnce) throws IOException {
        Map<String, List<Total>> expected = new HashMap<>();
        Map<String, Total> running = new HashMap<>();
        long[] inputs = {0};
        readAll(ordersTopic, false, (key, value) -> {
            JsonNode v = parse(value);
            if (v == null || !v.has("amount") || !v.has("seq")) {
                return; // a bad record: the job sends it to the dead-letter topic
            }
            inputs[0]++;
            Total prev = running.getOrDefault(key, new Total(0, 0, 0));
            Total next = new Total(
                    prev.count + 1,
                    prev.sum + v.get("amount").asLong(),
                    v.get("seq").asLong());
            running.put(key, next);
            expected.computeIfAbsent(key, k -> new ArrayList<>()).add(next);
        });
        Map<String, List<Total>> actual = new HashMap<>();
        long[] outputs = {0};
        readAll(totalsTopic, true, (key, value) -> {
            JsonNode v = parse(value);
            outputs[0]++;
            actual.computeIfAbsent(key, k -> new ArrayList<>())
                    .add(
                            v == null
                                    ? new Total(-1, -1, -1)
                                    : new Total(
                                            v.path("count").asLong(),
                                            v.path("sum").asLong(),
                                            v.path("lastSeq").asLong()));
        });
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, List<Total>> e : expected.entrySet()) {
            List<Total> got = actual.getOrDefault(e.getKey(), List.of());
            if (exactlyOnce) {
                compareExactly(e.getKey(), e.getValue(), got, problems);
            } else {
                compareAtLeastOnce(e.getKey(), e.getValue(), got, problems);
            }
        }
        for (String user : actual.keySet()) {
            if (!expected.containsKey(user)) {
                problems.add(user + ": " + actual.get(user).size() + " outputs but no input");
            }
        }
        return new Result(inputs[0], outputs[0], expected.size(), problems);
    }

    private static void compareExactly(String user, List<Total> want, List<Total> got, List<String> problems) {
        for (int i = 0; i < Math.max(want.size(), got.size()); i++) {
            Total w = i < want.size() ? want.get(i) : null;
            Total g = i < got.size() ? got.get(i) : null;
            if (w == null || g == null || !w.equals(g)) {
                problems.add(user + ": output " + (i + 1) + " is " + g + ", expected " + w + " (" + got.size()
                        + " outputs for " + want.size() + " inputs)");
                return;
            }
        }
    }

    /** Every expected total appears, in order; a restore may repeat a stretch (count goes back). */
    private static void compareAtLeastOnce(String user, List<Total> want, List<Total> got, List<String> problems) {
        int next = 0;
        for (Total g : got) {
            if (g.count >= 1
                    && g.count <= want.size()
                    && want.get((int) g.count - 1).equals(g)) {
                if (g.count == next + 1) {
                    next++;
                } else if (g.count > next + 1) {
                    problems.add(user + ": outputs skip from count " + next + " to " + g.count);
                    return;
                }
            } else {
                problems.add(user + ": output " + g + " matches no running total of the inputs");
                return;
            }
        }
        if (next != want.size()) {
            problems.add(user + ": outputs reach count " + next + " of " + want.size());
        }
    }

    private void readAll(String topic, boolean readCommitted, BiConsumer<String, byte[]> each) {
        Map<String, Object> p = new HashMap<>();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, readCommitted ? "read_committed" : "read_uncommitted");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            c.partitionsFor(topic, Duration.ofSeconds(30))
                    .forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
            parts.sort((a, b) -> Integer.compare(a.partition(), b.partition()));
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("reading " + topic + " to its end took more than 5 minutes");
                }
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
                        each.accept(r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8), r.value());
                    }
                }
            }
        }
    }

    private static JsonNode parse(byte[] value) {
        try {
            return value == null ? null : JSON.readTree(value);
        } catch (IOException e) {
            return null;
        }
    }
}
