package io.weir.fault;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.fixtures.KafkaFixture;
import io.weir.fixtures.WeirProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
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
 * Windowed aggregates under {@code kill -9}: event time from a field, records out of order within
 * the bound, the job in a child JVM killed at random moments and restarted. The verifier computes
 * from the input the final watermark (the lowest over the partitions of their highest timestamp
 * less the bound) and checks the read_committed output: exactly one result with the right count
 * and sum for every key and window that watermark closed, none for a window it did not close,
 * none twice. A watermark that a restart lost or moved back would send a closed window again; a
 * window lost from state would be missing or short.
 */
@ExtendWith(KafkaFixture.class)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WindowKillIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int PARTITIONS = 4;
    private static final int KILLS = Integer.getInteger("weir.test.kills", 3);
    /**
     * Event time starts an hour ago: results carry their window's time as timestamp, and a topic
     * with the default retention (7 days) rolls and deletes segments of older timestamps at once.
     */
    private static final long BASE = System.currentTimeMillis() / 60_000 * 60_000 - 3_600_000;

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void per_minute_counts_are_exact_and_sent_once_through_three_kills() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String app = KafkaFixture.uniqueTopic("kill-windows");
        String events = KafkaFixture.createTopic(app + "-events", PARTITIONS);
        String out = KafkaFixture.createTopic(app + "-out", PARTITIONS);
        PerMinute input = perMinuteEvents(events, random);
        send(input.records());
        runWithKills(
                app,
                "user-counts-per-minute.yaml",
                List.of("pipeline.0.source.topic=" + events, "pipeline.2.sink.topic=" + out),
                out,
                input.closed().size(),
                random,
                seed);
        verifyPerMinute(app, out, input, seed);
    }

    /**
     * Two instances share the per-minute job while its partitions move between them with their open
     * windows, timers and watermarks: one is killed -9 and stays down until the group gives its
     * partitions to the other (restored there from the killed one's last checkpoint, its files
     * downloaded from Kafka unless an earlier assignment left them on the new owner's disk), then
     * comes back and takes its share again (a join), then the other stops with SIGTERM (a leave).
     * A window's state or watermark lost in a move would make a result missing, short or sent twice.
     */
    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void per_minute_counts_are_exact_and_sent_once_while_partitions_move_between_instances() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String app = KafkaFixture.uniqueTopic("move-windows");
        String events = KafkaFixture.createTopic(app + "-events", PARTITIONS);
        String out = KafkaFixture.createTopic(app + "-out", PARTITIONS);
        PerMinute input = perMinuteEvents(events, random);
        long expected = input.closed().size();
        System.out.printf("%s: seed %d, %d windows to close%n", app, seed, expected);
        // The input goes in four slices, each written once the moves before it are done and the
        // slice before it is processed: the windows still open at a move (the last minute of every
        // key, and their timers and watermarks) close only in a later slice, on their new owner.
        List<ProducerRecord<String, String>> records = input.records();
        int[] sliceEnds = {records.size() * 2 / 5, records.size() * 3 / 5, records.size() * 4 / 5, records.size()};
        List<String> overrides = new ArrayList<>(List.of(
                "kafka.bootstrap=" + KafkaFixture.bootstrap(),
                "application=" + app,
                "pipeline.0.source.topic=" + events,
                "pipeline.2.sink.topic=" + out,
                "processing.checkpoint.interval=500ms",
                // A killed member leaves the group after 6 s, not Weir's default 30 s.
                "kafka.consumer.session.timeout.ms=6000",
                "processing.state.dir=" + Path.of("target", "fault-state", app).toAbsolutePath()));
        Path example = Path.of("config", "examples", "user-counts-per-minute.yaml");
        try (WeirProcess a = WeirProcess.run(app + "-a", example, with(overrides, "instance-id=" + app + "-a"));
                WeirProcess b = WeirProcess.run(app + "-b", example, with(overrides, "instance-id=" + app + "-b"))) {
            send(records.subList(0, sliceEnds[0]));
            a.start();
            b.start();
            awaitRunning(a, events, 0, List.of());
            awaitRunning(b, events, 0, List.of());
            awaitProcessed(app, sliceEnds[0], a, b);

            List<String> aHeld = heldBy(a, events);
            assertFalse(aHeld.isEmpty(), "a runs partitions: " + a.tail(20));
            int bLines = logLines(b);
            a.kill();
            awaitRunning(b, events, bLines, aHeld); // restored from a's last checkpoint
            send(records.subList(sliceEnds[0], sliceEnds[1]));
            awaitProcessed(app, sliceEnds[1], b);

            a.start();
            awaitRunning(a, events, 0, List.of()); // a join: b gives partitions back
            send(records.subList(sliceEnds[1], sliceEnds[2]));
            awaitProcessed(app, sliceEnds[2], a, b);

            List<String> bHeld = heldBy(b, events);
            assertFalse(bHeld.isEmpty(), "b runs partitions: " + b.tail(20));
            int aLines = logLines(a);
            b.stop();
            awaitRunning(a, events, aLines, bHeld); // a leave: a takes b's partitions over
            send(records.subList(sliceEnds[2], sliceEnds[3]));
            awaitProcessed(app, sliceEnds[3], a);
            try {
                await(app + " commits all " + expected + " results")
                        .atMost(Duration.ofSeconds(90))
                        .pollInterval(Duration.ofSeconds(1))
                        .until(() -> {
                            a.assertAlive();
                            return KafkaFixture.readAllCommitted(out).size() >= expected;
                        });
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                System.out.printf("%s: %s%n", app, e.getMessage()); // the verifier says what is missing
            }
            a.stop();
        }
        verifyPerMinute(app, out, input, seed);
    }

    private static List<String> with(List<String> overrides, String more) {
        List<String> all = new ArrayList<>(overrides);
        all.add(more);
        return all;
    }

    private static int logLines(WeirProcess p) throws Exception {
        return Files.readAllLines(p.log(), StandardCharsets.UTF_8).size();
    }

    /**
     * Waits until a line of {@code p}'s latest log after its first {@code afterLine} says it runs one
     * of {@code partitions} (any partition when empty).
     */
    private static void awaitRunning(WeirProcess p, String topic, int afterLine, List<String> partitions) {
        await(p.log().getFileName() + " runs " + (partitions.isEmpty() ? "partitions" : "one of " + partitions))
                .atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    p.assertAlive();
                    List<String> lines = Files.readAllLines(p.log(), StandardCharsets.UTF_8);
                    for (String line : lines.subList(Math.min(afterLine, lines.size()), lines.size())) {
                        if (line.contains(" partitions from {")
                                && (partitions.isEmpty()
                                        || partitionsOf(topic, line).stream().anyMatch(partitions::contains))) {
                            return true;
                        }
                    }
                    return false;
                });
    }

    /** The partitions of {@code topic} assigned to {@code p} now, as its latest log tells. */
    private static List<String> heldBy(WeirProcess p, String topic) throws Exception {
        List<String> held = new ArrayList<>();
        for (String line : Files.readAllLines(p.log(), StandardCharsets.UTF_8)) {
            int now = line.indexOf("(now [");
            if (line.contains("partitions assigned: ") && now >= 0) {
                held = partitionsOf(topic, line.substring(now));
            } else if (line.contains("partitions revoked: ") || line.contains("partitions lost: ")) {
                held.removeAll(partitionsOf(topic, line));
            }
        }
        return held;
    }

    /** The names {@code topic-N} in {@code text}. */
    private static List<String> partitionsOf(String topic, String text) {
        List<String> names = new ArrayList<>();
        Matcher m = Pattern.compile(Pattern.quote(topic) + "-[0-9]+").matcher(text);
        while (m.find()) {
            names.add(m.group());
        }
        return names;
    }

    /** Waits until the group {@code app} has committed {@code records} input records in all. */
    private static void awaitProcessed(String app, long records, WeirProcess... running) {
        await(app + " commits the positions of its first " + records + " input records")
                .atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    for (WeirProcess p : running) {
                        p.assertAlive();
                    }
                    return KafkaFixture.admin()
                                    .listConsumerGroupOffsets(app)
                                    .partitionsToOffsetAndMetadata()
                                    .get()
                                    .values()
                                    .stream()
                                    .filter(o -> o != null)
                                    .mapToLong(OffsetAndMetadata::offset)
                                    .sum()
                            >= records;
                });
    }

    private static void send(List<ProducerRecord<String, String>> records) {
        try (KafkaProducer<String, String> producer = producer()) {
            records.forEach(producer::send);
        }
    }

    /** The per-minute job's input, not written yet, and what its output must hold. */
    private record PerMinute(List<ProducerRecord<String, String>> records, Map<String, long[]> closed, int late) {}

    /**
     * 300,000 events of 200 users, ten ms apart in event time and up to 4 s out of order, a few of
     * them five minutes late, with the windows the final watermark closes ("user@start" → {count,
     * sum}) and the number of late events.
     */
    private static PerMinute perMinuteEvents(String events, Random random) {
        int count = 300_000;
        int users = 200;
        long bound = 5_000;
        // user -> window start -> {count, sum}
        Map<String, Map<Long, long[]>> expected = new HashMap<>();
        long[] maxTs = new long[PARTITIONS];
        int late = 0;
        List<ProducerRecord<String, String>> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int user = random.nextInt(users);
            int partition = user % PARTITIONS;
            // Ten ms apart in event time, up to 4 s early: out of order, within the 5 s bound.
            long ts = BASE + 10L * i - random.nextInt(4_000);
            long amount = 1 + random.nextInt(100);
            boolean isLate = i >= 60_000 && random.nextInt(200) == 0;
            if (isLate) {
                // Five minutes behind: its minute closed long ago, on every interleaving.
                ts -= 300_000;
                late++;
            }
            maxTs[partition] = Math.max(maxTs[partition], ts);
            records.add(new ProducerRecord<>(
                    events,
                    partition,
                    ts,
                    "u" + user,
                    "{\"user\":\"u" + user + "\",\"amount\":" + amount + ",\"ts\":" + ts + "}"));
            if (isLate) {
                continue;
            }
            long[] e = expected.computeIfAbsent("u" + user, u -> new HashMap<>())
                    .computeIfAbsent(ts - Math.floorMod(ts, 60_000L), w -> new long[2]);
            e[0]++;
            e[1] += amount;
        }
        long finalWatermark = Long.MAX_VALUE;
        for (long m : maxTs) {
            finalWatermark = Math.min(finalWatermark, m - bound);
        }
        Map<String, long[]> closed = new TreeMap<>(); // "user@start" -> {count, sum}
        for (Map.Entry<String, Map<Long, long[]>> u : expected.entrySet()) {
            for (Map.Entry<Long, long[]> w : u.getValue().entrySet()) {
                if (w.getKey() + 60_000 <= finalWatermark) {
                    closed.put(u.getKey() + "@" + w.getKey(), w.getValue());
                }
            }
        }
        return new PerMinute(records, closed, late);
    }

    /** The per-minute job's committed output and dead letters against {@code input}. */
    private static void verifyPerMinute(String app, String out, PerMinute input, long seed) throws Exception {
        Map<String, List<JsonNode>> results = new TreeMap<>();
        for (ConsumerRecord<String, String> r : KafkaFixture.readAllCommitted(out)) {
            JsonNode v = JSON.readTree(r.value());
            assertEquals(
                    v.get("windowStart").asLong() + 60_000, v.get("windowEnd").asLong(), v.toString());
            results.computeIfAbsent(
                            v.get("user").asText() + "@" + v.get("windowStart").asLong(), k -> new ArrayList<>())
                    .add(v);
        }
        verify(input.closed(), results, seed);
        long deadLate = KafkaFixture.readAllCommitted(app + "-dlq").stream()
                .filter(r -> "late"
                        .equals(new String(r.headers().lastHeader("weir.error").value())))
                .count();
        assertEquals(input.late(), deadLate, "seed " + seed + ": late records in the dead-letter topic, each once");
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void sessions_after_a_repartition_topic_are_exact_and_sent_once_through_three_kills() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String app = KafkaFixture.uniqueTopic("kill-sessions");
        String clicks = KafkaFixture.createTopic(app + "-clicks", PARTITIONS);
        String out = KafkaFixture.createTopic(app + "-out", PARTITIONS);
        String late = app + "-late";
        int users = 300;
        int perUser = 400;
        long gap = 2_000;
        long bound = 500;
        // Each user clicks every 0.2-1.2 s, with a pause of 3 s (a new session) now and then, and
        // now and then exactly the gap (still the same session: sessions that touch merge).
        List<long[]> all = new ArrayList<>(); // {ts, user, sendOrder}
        Map<String, List<Long>> perUserTimes = new HashMap<>();
        for (int u = 0; u < users; u++) {
            long t = BASE + random.nextInt(1_000);
            for (int i = 0; i < perUser; i++) {
                int draw = random.nextInt(20);
                t += draw == 0 ? 3_000 : draw == 1 ? gap : 200 + random.nextInt(1_000);
                all.add(new long[] {t, u, t + random.nextInt(400)});
                perUserTimes.computeIfAbsent("u" + u, k -> new ArrayList<>()).add(t);
            }
        }
        // Sent in order of ts plus up to 400 ms: out of order, within the 500 ms bound.
        all.sort(Comparator.comparingLong(e -> e[2]));
        long[] maxTs = new long[PARTITIONS];
        java.util.Arrays.fill(maxTs, Long.MIN_VALUE);
        try (KafkaProducer<String, String> producer = producer()) {
            for (long[] e : all) {
                int partition = (int) (e[1] % PARTITIONS);
                maxTs[partition] = Math.max(maxTs[partition], e[0]);
                String time = Instant.ofEpochMilli(e[0]).toString();
                producer.send(new ProducerRecord<>(
                        clicks,
                        partition,
                        "c" + e[1],
                        "{\"user\":\"u" + e[1] + "\",\"page\":\"p\",\"time\":\"" + time + "\"}"));
            }
        }
        long finalWatermark = Long.MAX_VALUE;
        for (long m : maxTs) {
            finalWatermark = Math.min(finalWatermark, m - bound);
        }
        Map<String, long[]> closed = new TreeMap<>(); // "user@start" -> {count, end}
        for (Map.Entry<String, List<Long>> u : perUserTimes.entrySet()) {
            List<Long> times = u.getValue();
            Collections.sort(times);
            long start = times.get(0);
            long last = start;
            int n = 0;
            for (long t : times) {
                if (t - last > gap) {
                    if (last + gap < finalWatermark) {
                        closed.put(u.getKey() + "@" + start, new long[] {n, last + gap});
                    }
                    start = t;
                    n = 0;
                }
                last = t;
                n++;
            }
            if (last + gap < finalWatermark) {
                closed.put(u.getKey() + "@" + start, new long[] {n, last + gap});
            }
        }
        runWithKills(
                app,
                "user-sessions.yaml",
                List.of(
                        "pipeline.0.source.topic=" + clicks,
                        "pipeline.0.source.watermark.max-out-of-orderness=500ms",
                        // A partition that finished would go idle and let the others' sessions close
                        // beyond the final watermark the verifier computes.
                        "pipeline.0.source.watermark.idle-after=1h",
                        "pipeline.2.aggregate.window.session.gap=2s",
                        "pipeline.2.aggregate.late.topic=" + late,
                        "pipeline.3.sink.topic=" + out),
                out,
                closed.size(),
                random,
                seed);
        Map<String, List<JsonNode>> results = new TreeMap<>();
        for (ConsumerRecord<String, String> r : KafkaFixture.readAllCommitted(out)) {
            JsonNode v = JSON.readTree(r.value());
            results.computeIfAbsent(
                            v.get("user").asText() + "@" + v.get("windowStart").asLong(), k -> new ArrayList<>())
                    .add(v);
        }
        for (Map.Entry<String, long[]> e : closed.entrySet()) {
            List<JsonNode> got = results.get(e.getKey());
            if (got != null && got.size() == 1) {
                assertEquals(e.getValue()[1], got.get(0).get("windowEnd").asLong(), "seed " + seed + ": end of " + e);
            }
        }
        Map<String, long[]> counts = new TreeMap<>();
        closed.forEach((k, v) -> counts.put(k, new long[] {v[0], -1}));
        java.util.Set<String> uncommitted = new java.util.HashSet<>();
        for (ConsumerRecord<String, String> r :
                KafkaFixture.readAll(out, org.apache.kafka.common.IsolationLevel.READ_UNCOMMITTED)) {
            JsonNode v = JSON.readTree(r.value());
            String k = v.get("user").asText() + "@" + v.get("windowStart").asLong();
            if (!results.containsKey(k)) {
                uncommitted.add(k + "/" + r.partition() + "@" + r.offset());
            }
        }
        System.out.printf(
                "%s: only in aborted transactions: %d, such as %s%n",
                app, uncommitted.size(), uncommitted.stream().limit(10).toList());
        System.out.printf(
                "%s: %d results, %d late, %d dead letters%n",
                app,
                results.size(),
                KafkaFixture.readAllCommitted(late).size(),
                KafkaFixture.readAllCommitted(app + "-dlq").size());
        verify(counts, results, seed);
        assertEquals(0, KafkaFixture.readAllCommitted(late).size(), "seed " + seed + ": nothing is late");
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void a_left_join_sends_every_pair_and_every_closed_unmatched_order_once_through_three_kills() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String app = KafkaFixture.uniqueTopic("kill-join");
        String orders = KafkaFixture.createTopic(app + "-orders", PARTITIONS);
        String payments = KafkaFixture.createTopic(app + "-payments", PARTITIONS);
        String out = KafkaFixture.createTopic(app + "-out", PARTITIONS);
        int count = 160_000;
        long within = 10_000;
        long bound = 5_000;
        // {ts, sendAt, order, payment (-1: the order itself)}
        List<long[]> all = new ArrayList<>();
        Map<Integer, Long> orderTs = new HashMap<>();
        Map<Integer, List<long[]>> paysOf = new HashMap<>(); // order -> {payment, ts}
        int paymentsSent = 0;
        for (int i = 0; i < count; i++) {
            long ts = BASE + 5L * i;
            orderTs.put(i, ts);
            all.add(new long[] {ts, ts + random.nextInt(4_000), i, -1});
            int n = random.nextInt(10) == 0 ? 2 : random.nextInt(10) < 8 ? 1 : 0;
            for (int k = 0; k < n; k++) {
                // Mostly within 10 s of the order, some later (no partner), some before it.
                long pts = ts - 2_000 + random.nextInt(15_000);
                int payment = paymentsSent++;
                all.add(new long[] {pts, pts + random.nextInt(4_000), i, payment});
                paysOf.computeIfAbsent(i, o -> new ArrayList<>()).add(new long[] {payment, pts});
            }
        }
        // Sent in order of time plus up to 4 s: out of order, within the 5 s bound, on both topics.
        all.sort(Comparator.comparingLong(e -> e[1]));
        long[][] maxTs = new long[PARTITIONS][2];
        for (long[] m : maxTs) {
            java.util.Arrays.fill(m, Long.MIN_VALUE);
        }
        try (KafkaProducer<String, String> producer = producer()) {
            for (long[] e : all) {
                int order = (int) e[2];
                int partition = order % PARTITIONS;
                boolean isPayment = e[3] >= 0;
                maxTs[partition][isPayment ? 1 : 0] = Math.max(maxTs[partition][isPayment ? 1 : 0], e[0]);
                String value = isPayment
                        ? "{\"payment\":" + e[3] + ",\"ts\":" + e[0] + "}"
                        : "{\"order\":" + order + ",\"ts\":" + e[0] + "}";
                producer.send(new ProducerRecord<>(isPayment ? payments : orders, partition, e[0], "o" + order, value));
            }
        }
        // What each task's final watermark lets out: every pair, and each order without a partner
        // whose 10 s passed.
        Map<String, long[]> expected = new TreeMap<>(); // "order/payment" (payment -1: unmatched) -> {1, -1}
        for (int i = 0; i < count; i++) {
            int p = i % PARTITIONS;
            long watermark = Math.min(maxTs[p][0], maxTs[p][1]) - bound;
            long ts = orderTs.get(i);
            boolean matched = false;
            for (long[] pay : paysOf.getOrDefault(i, List.of())) {
                if (Math.abs(pay[1] - ts) <= within) {
                    expected.put(i + "/" + pay[0], new long[] {1, -1});
                    matched = true;
                }
            }
            if (!matched && ts + within + 1 <= watermark) {
                expected.put(i + "/-1", new long[] {1, -1});
            }
        }
        runWithKills(
                app,
                "order-payments.yaml",
                List.of(
                        "pipeline.0.source.topic=" + orders,
                        "pipeline.0.source.watermark.idle-after=1h",
                        "pipeline.1.join.with.topic=" + payments,
                        "pipeline.1.join.within=10s",
                        "pipeline.2.sink.topic=" + out),
                out,
                expected.size(),
                random,
                seed);
        Map<String, List<JsonNode>> results = new TreeMap<>();
        for (ConsumerRecord<String, String> r : KafkaFixture.readAllCommitted(out)) {
            JsonNode v = JSON.readTree(r.value());
            JsonNode payment = v.get("payment");
            String k = v.get("order").asLong() + "/"
                    + (payment.isNull() ? -1 : payment.get("payment").asLong());
            assertEquals("o" + v.get("order").asLong(), r.key(), v.toString());
            results.computeIfAbsent(k, x -> new ArrayList<>()).add(v);
        }
        System.out.printf(
                "%s: %d orders, %d payments, %d results expected, %d dead letters%n",
                app,
                count,
                paymentsSent,
                expected.size(),
                KafkaFixture.readAllCommitted(app + "-dlq").size());
        // Each result once, none that should not be there, none missing (verify reads a count of 1).
        Map<String, List<JsonNode>> counted = new TreeMap<>();
        results.forEach((k, v) -> counted.put(
                k,
                v.stream()
                        .map(n -> (JsonNode) ((com.fasterxml.jackson.databind.node.ObjectNode) n).put("count", 1))
                        .toList()));
        verify(expected, counted, seed);
        assertEquals(0, KafkaFixture.readAllCommitted(app + "-dlq").size(), "seed " + seed + ": nothing is late");
    }

    /** Exactly one result per closed window with its count (and sum when known), nothing else. */
    private static void verify(Map<String, long[]> closed, Map<String, List<JsonNode>> results, long seed) {
        for (Map.Entry<String, List<JsonNode>> r : results.entrySet()) {
            assertTrue(
                    closed.containsKey(r.getKey()),
                    "seed " + seed + ": a result for " + r.getKey() + ", which the final watermark did not close: "
                            + r.getValue());
            assertEquals(1, r.getValue().size(), "seed " + seed + ": results for " + r.getKey() + ": " + r.getValue());
        }
        List<String> missing = new ArrayList<>();
        closed.keySet().stream().filter(k -> !results.containsKey(k)).forEach(missing::add);
        assertTrue(
                missing.isEmpty(),
                "seed " + seed + ": no result for " + missing.size() + " of " + closed.size()
                        + " closed windows, such as " + missing.subList(0, Math.min(10, missing.size())));
        for (Map.Entry<String, long[]> e : closed.entrySet()) {
            List<JsonNode> got = results.get(e.getKey());
            JsonNode v = got.get(0);
            String countField = v.has("count") ? "count" : "clicks";
            assertEquals(e.getValue()[0], v.get(countField).asLong(), "seed " + seed + ": count of " + e.getKey());
            if (e.getValue()[1] >= 0) {
                assertEquals(e.getValue()[1], v.get("sum").asLong(), "seed " + seed + ": sum of " + e.getKey());
            }
        }
    }

    private static KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(KafkaFixture.producerConfig(), new StringSerializer(), new StringSerializer());
    }

    /**
     * Runs the example job in a child JVM, kills it {@link #KILLS} times, each once a random number
     * of results more were committed (so that restarts restore from checkpoints, not from nothing),
     * restarts it, and stops it gracefully
     * once the committed output holds {@code expectedOutputs} results.
     */
    private static void runWithKills(
            String app, String example, List<String> topics, String out, long expectedOutputs, Random random, long seed)
            throws Exception {
        System.out.printf("%s: seed %d, %d windows to close%n", app, seed, expectedOutputs);
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
                long killAt = KafkaFixture.endOffsets(out, IsolationLevel.READ_COMMITTED)
                        + 1
                        + random.nextInt((int) (expectedOutputs / (KILLS + 2)));
                await(app + " commits up to " + killAt + " results before kill " + (kill + 1))
                        .atMost(Duration.ofSeconds(90))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> {
                            weir.assertAlive();
                            return KafkaFixture.endOffsets(out, IsolationLevel.READ_COMMITTED) >= killAt;
                        });
                weir.kill();
                weir.start();
            }
            try {
                await(app + " commits all " + expectedOutputs + " results")
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofSeconds(1))
                        .until(() -> {
                            weir.assertAlive();
                            return KafkaFixture.readAllCommitted(out).size() >= expectedOutputs;
                        });
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                // The verifier says which windows are missing, which is what one wants to know.
                System.out.printf("%s: %s%n", app, e.getMessage());
            }
            weir.stop();
        }
    }
}
