package io.weir.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.tools.OrderGenerator;
import io.weir.tools.RunningTotalsVerifier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The input and the verdict of {@code bench/run-churn.sh}: writes orders for one of four example
 * jobs at a steady rate, and once the job's group has committed the end of its input, checks the
 * read_committed output against the input. Not a benchmark: it exits 1 when the output is wrong.
 *
 * <pre>
 * produce BOOTSTRAP TOPIC COUNT PER_SECOND USERS PARTITIONS DUPLICATE_EVERY
 * produce-paid BOOTSTRAP COUNT PER_SECOND PARTITIONS
 * produce-totals BOOTSTRAP TOPIC COUNT PER_SECOND USERS PARTITIONS
 * verify windows|dedupe|buckets|join|totals BOOTSTRAP INPUT OUTPUT GROUP
 * watch BOOTSTRAP OUTPUT FILE, gaps FILE EVENTS (see OutputGaps)
 * </pre>
 *
 * <p>Orders are {@code {"user","amount","ts","seq"}}, keyed by user: {@code ts} ten ms apart from
 * twenty minutes ago (in order: no order is late), {@code seq} unique per order; with {@code
 * DUPLICATE_EVERY} n > 0 every n-th order is written twice. {@code produce-paid} writes orders
 * {@code {"order","amount","ts"}} keyed by order id to {@code orders} and, for four orders in five,
 * a payment {@code {"order","paid","ts"}} up to 3 s later in event time to {@code payments}, right
 * after its order (within the job's 5 s bound, so none is late). {@code produce-totals} writes
 * the running-totals job's orders ({@link OrderGenerator}: {@code {"user","amount","seq"}}), which
 * {@link RunningTotalsVerifier} checks.
 */
public final class ChurnCheck {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ChurnCheck() {}

    public static void main(String[] args) throws Exception {
        boolean ok = switch (args[0]) {
            case "produce" -> produce(
                    args[1],
                    args[2],
                    Integer.parseInt(args[3]),
                    Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]),
                    Integer.parseInt(args[6]),
                    Integer.parseInt(args[7]));
            case "produce-paid" -> producePaid(
                    args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
            case "produce-totals" -> produceTotals(
                    args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]), Integer.parseInt(args[5]),
                    Integer.parseInt(args[6]));
            case "verify" -> verify(args[1], args[2], args[3], args[4], args[5]);
            case "watch" -> {
                OutputGaps.watch(args[1], args[2], Path.of(args[3]));
                yield true;
            }
            case "gaps" -> {
                OutputGaps.report(Path.of(args[1]), Path.of(args[2]));
                yield true;
            }
            default -> throw new IllegalArgumentException(
                    "produce, produce-paid, produce-totals, verify, watch or gaps, was " + args[0]);
        };
        if (args[0].equals("verify")) {
            System.out.println(ok ? "VERIFIED" : "FAILED");
        }
        System.exit(ok ? 0 : 1);
    }

    /**
     * Once the group committed the end of its inputs, checks the output; while it fails, checks again
     * every 2 s until the output has not grown for 20 s: a later stage (bucket totals' second, behind
     * its repartition topic) commits its last outputs a checkpoint or two after the input's end.
     */
    private static boolean verify(String job, String bootstrap, String input, String output, String group)
            throws Exception {
        List<String> inputs = job.equals("join") ? List.of(input, "payments") : List.of(input);
        for (String topic : inputs) {
            waitCaughtUp(bootstrap, topic, group);
        }
        long lastSize = -1;
        long unchangedSince = System.nanoTime();
        while (true) {
            boolean ok = switch (job) {
                case "windows" -> verifyWindows(bootstrap, input, output);
                case "dedupe" -> verifyDedupe(bootstrap, input, output);
                case "buckets" -> verifyBuckets(bootstrap, input, output);
                case "join" -> verifyJoin(bootstrap, input, output);
                case "totals" -> verifyTotals(bootstrap, input, output);
                default -> throw new IllegalArgumentException("no verifier for " + job);
            };
            long size = readCommitted(bootstrap, output).size();
            if (size != lastSize) {
                lastSize = size;
                unchangedSince = System.nanoTime();
            }
            if (ok || System.nanoTime() - unchangedSince > Duration.ofSeconds(20).toNanos()) {
                return ok;
            }
            System.out.println("(checking again: the output may still grow)");
            Thread.sleep(2000);
        }
    }

    private static void createTopic(String bootstrap, String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        Properties config = new Properties();
        config.put("bootstrap.servers", bootstrap);
        config.put("linger.ms", "5");
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    /** Sleeps until the {@code i}-th record is due at {@code perSecond} from {@code start}. */
    private static void pace(long start, int i, int perSecond) throws InterruptedException {
        long ahead = start + (long) (i * 1e9 / perSecond) - System.nanoTime();
        if (ahead > 1_000_000) {
            Thread.sleep(ahead / 1_000_000);
        }
    }

    private static boolean produceTotals(
            String bootstrap, String topic, int count, int perSecond, int users, int partitions) throws Exception {
        createTopic(bootstrap, topic, partitions);
        try (OrderGenerator orders = new OrderGenerator(bootstrap, topic, users, 7)) {
            orders.sendPaced(perSecond, count);
        }
        System.out.printf("produced %,d orders to %s%n", count, topic);
        return true;
    }

    /** running-totals: per user, the i-th committed output is the total of its first i orders, once. */
    private static boolean verifyTotals(String bootstrap, String input, String output) throws Exception {
        RunningTotalsVerifier.Result result = new RunningTotalsVerifier(bootstrap).verify(input, output, true);
        System.out.println(result);
        return result.ok();
    }

    private static boolean producePaid(String bootstrap, int count, int perSecond, int partitions) throws Exception {
        createTopic(bootstrap, "orders", partitions);
        createTopic(bootstrap, "payments", partitions);
        Random random = new Random(7);
        long t0 = System.currentTimeMillis() - 1_200_000L;
        try (KafkaProducer<String, String> producer = producer(bootstrap)) {
            long start = System.nanoTime();
            for (int i = 0; i < count; i++) {
                String order = "o" + i;
                long ts = t0 + i * 10L;
                int amount = 1 + random.nextInt(100);
                producer.send(new ProducerRecord<>(
                        "orders", order, "{\"order\":\"" + order + "\",\"amount\":" + amount + ",\"ts\":" + ts + "}"));
                if (random.nextInt(5) > 0) {
                    producer.send(new ProducerRecord<>(
                            "payments",
                            order,
                            "{\"order\":\"" + order + "\",\"paid\":" + amount + ",\"ts\":" + (ts + random.nextInt(3_000))
                                    + "}"));
                }
                pace(start, i, perSecond);
            }
        }
        System.out.printf("produced %,d orders and their payments%n", count);
        return true;
    }

    private static boolean produce(
            String bootstrap, String topic, int count, int perSecond, int users, int partitions, int duplicateEvery)
            throws Exception {
        createTopic(bootstrap, topic, partitions);
        Random random = new Random(7);
        // Results carry their window's time: twenty minutes ago is well inside the default retention.
        long t0 = System.currentTimeMillis() - 1_200_000L;
        Map<String, Integer> seq = new HashMap<>();
        try (KafkaProducer<String, String> producer = producer(bootstrap)) {
            long start = System.nanoTime();
            for (int i = 0; i < count; i++) {
                String user = "u" + random.nextInt(users);
                int n = seq.merge(user, 1, Integer::sum);
                String value = "{\"user\":\"" + user + "\",\"amount\":" + (1 + random.nextInt(100)) + ",\"ts\":"
                        + (t0 + i * 10L) + ",\"seq\":\"" + user + "-" + n + "\"}";
                producer.send(new ProducerRecord<>(topic, user, value));
                if (duplicateEvery > 0 && i % duplicateEvery == 0) {
                    producer.send(new ProducerRecord<>(topic, user, value));
                }
                pace(start, i, perSecond);
            }
        }
        System.out.printf("produced %,d orders to %s%n", count, topic);
        return true;
    }

    /** Waits (up to 5 minutes) until {@code group} has committed the end of every partition of {@code input}. */
    private static void waitCaughtUp(String bootstrap, String input, String group) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            int partitions =
                    admin.describeTopics(List.of(input)).allTopicNames().get().get(input).partitions().size();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(input, p), OffsetSpec.latest());
            }
            while (true) {
                Map<TopicPartition, OffsetAndMetadata> committed =
                        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
                var ends = admin.listOffsets(latest).all().get();
                if (ends.entrySet().stream().allMatch(e -> committed.get(e.getKey()) != null
                        && committed.get(e.getKey()).offset() >= e.getValue().offset())) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(group + " did not commit the end of " + input + ": " + committed);
                }
                Thread.sleep(1000);
            }
        }
    }

    private static List<ConsumerRecord<String, String>> readCommitted(String bootstrap, String topic) {
        Properties config = new Properties();
        config.put("bootstrap.servers", bootstrap);
        config.put("isolation.level", "read_committed");
        config.put("enable.auto.commit", "false");
        List<ConsumerRecord<String, String>> all = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                consumer.poll(Duration.ofMillis(500)).forEach(all::add);
            }
        }
        return all;
    }

    /**
     * user-counts-per-minute: exactly one result with the right count and sum for every user and
     * minute the final watermark of its partition (highest ts less 5 s) closed, none for a minute it
     * did not close.
     */
    private static boolean verifyWindows(String bootstrap, String input, String output) throws Exception {
        Map<Integer, Long> maxTs = new HashMap<>();
        Map<String, Integer> partitionOf = new HashMap<>();
        Map<String, long[]> expected = new HashMap<>(); // "user@start" -> {count, sum}
        for (ConsumerRecord<String, String> r : readCommitted(bootstrap, input)) {
            JsonNode v = JSON.readTree(r.value());
            long ts = v.get("ts").asLong();
            maxTs.merge(r.partition(), ts, Math::max);
            partitionOf.put(r.key(), r.partition());
            long[] e = expected.computeIfAbsent(r.key() + "@" + (ts - Math.floorMod(ts, 60_000L)), k -> new long[2]);
            e[0]++;
            e[1] += v.get("amount").asLong();
        }
        Map<String, Integer> seen = new HashMap<>();
        int wrong = 0;
        for (ConsumerRecord<String, String> r : readCommitted(bootstrap, output)) {
            JsonNode v = JSON.readTree(r.value());
            String user = v.get("user").asText();
            long start = v.get("windowStart").asLong();
            String window = user + "@" + start;
            seen.merge(window, 1, Integer::sum);
            long[] e = expected.get(window);
            boolean closed = partitionOf.containsKey(user)
                    && start + 60_000 <= maxTs.get(partitionOf.get(user)) - 5_000;
            if (e == null || !closed || e[0] != v.get("count").asLong() || e[1] != v.get("sum").asLong()) {
                if (wrong++ < 10) {
                    System.out.println("wrong: " + r.value() + ", expected " + (e == null ? "none" : e[0] + " / " + e[1]));
                }
            }
        }
        int closed = 0;
        int missing = 0;
        for (String window : expected.keySet()) {
            String user = window.substring(0, window.indexOf('@'));
            long start = Long.parseLong(window.substring(window.indexOf('@') + 1));
            if (start + 60_000 <= maxTs.get(partitionOf.get(user)) - 5_000) {
                closed++;
                if (!seen.containsKey(window) && missing++ < 10) {
                    System.out.println("missing: " + window);
                }
            }
        }
        long twice = seen.values().stream().filter(n -> n > 1).count();
        System.out.printf(
                "%,d results, %,d closed windows: %d wrong, %d missing, %d sent more than once%n",
                seen.values().stream().mapToInt(Integer::intValue).sum(), closed, wrong, missing, twice);
        return wrong == 0 && missing == 0 && twice == 0;
    }

    /** dedupe-orders: every distinct order (by seq) exactly once. */
    private static boolean verifyDedupe(String bootstrap, String input, String output) throws Exception {
        Set<String> orders = new HashSet<>();
        for (ConsumerRecord<String, String> r : readCommitted(bootstrap, input)) {
            orders.add(JSON.readTree(r.value()).get("seq").asText());
        }
        Map<String, Integer> sent = new HashMap<>();
        for (ConsumerRecord<String, String> r : readCommitted(bootstrap, output)) {
            sent.merge(JSON.readTree(r.value()).get("seq").asText(), 1, Integer::sum);
        }
        long twice = sent.values().stream().filter(n -> n > 1).count();
        long missing = orders.stream().filter(s -> !sent.containsKey(s)).count();
        long unknown = sent.keySet().stream().filter(s -> !orders.contains(s)).count();
        System.out.printf(
                "%,d distinct orders: %d missing, %d sent more than once, %d unknown%n",
                orders.size(), missing, twice, unknown);
        return twice == 0 && missing == 0 && unknown == 0;
    }

    /** bucket-totals: per bucket (amount % 10) the counts 1, 2, … n each once and the last sum the bucket's. */
    private static boolean verifyBuckets(String bootstrap, String input, String output) throws Exception {
        Map<String, long[]> expected = new TreeMap<>(); // bucket -> {count, sum}
        for (ConsumerRecord<String, String> r : readCommitted(bootstrap, input)) {
            long amount = JSON.readTree(r.value()).get("amount").asLong();
            long[] e = expected.computeIfAbsent(Long.toString(amount % 10), k -> new long[2]);
            e[0]++;
            e[1] += amount;
        }
        Map<String, Map<Long, Integer>> counts = new HashMap<>();
        Map<String, Long> lastSum = new HashMap<>();
        for (ConsumerRecord<String, String> r : readCommitted(bootstrap, output)) {
            JsonNode v = JSON.readTree(r.value());
            String bucket = v.get("bucket").asText();
            long count = v.get("count").asLong();
            counts.computeIfAbsent(bucket, k -> new HashMap<>()).merge(count, 1, Integer::sum);
            if (count == expected.getOrDefault(bucket, new long[2])[0]) {
                lastSum.put(bucket, v.get("sum").asLong());
            }
        }
        boolean ok = counts.keySet().stream().allMatch(expected::containsKey);
        for (Map.Entry<String, long[]> e : expected.entrySet()) {
            Map<Long, Integer> got = counts.getOrDefault(e.getKey(), Map.of());
            long n = e.getValue()[0];
            boolean each = got.size() == n
                    && got.keySet().stream().allMatch(c -> c >= 1 && c <= n)
                    && got.values().stream().allMatch(times -> times == 1);
            boolean sum = Objects.equals(lastSum.get(e.getKey()), e.getValue()[1]);
            System.out.printf(
                    "bucket %s: %,d orders, %,d distinct counts, last sum %s of %d%s%n",
                    e.getKey(), n, got.size(), lastSum.get(e.getKey()), e.getValue()[1], each && sum ? "" : "  WRONG");
            ok &= each && sum;
        }
        return ok;
    }

    /**
     * order-payments (a left join within 10 minutes): every paid order once, as ordered, with its
     * payment; every unpaid order at most once, with payment null, and surely once when its ten minutes ended a
     * minute before its partition's last order.
     */
    private static boolean verifyJoin(String bootstrap, String input, String output) throws Exception {
        Map<String, Long> ts = new HashMap<>();
        Map<String, JsonNode> orders = new HashMap<>();
        Map<String, Integer> partitionOf = new HashMap<>();
        Map<Integer, Long> maxTs = new HashMap<>();
        for (ConsumerRecord<String, String> r : readCommitted(bootstrap, input)) {
            JsonNode order = JSON.readTree(r.value());
            long t = order.get("ts").asLong();
            orders.put(r.key(), order);
            ts.put(r.key(), t);
            partitionOf.put(r.key(), r.partition());
            maxTs.merge(r.partition(), t, Math::max);
        }
        Map<String, String> paid = new HashMap<>();
        for (ConsumerRecord<String, String> r : readCommitted(bootstrap, "payments")) {
            paid.put(r.key(), r.value());
        }
        Map<String, Integer> sent = new HashMap<>();
        int wrong = 0;
        for (ConsumerRecord<String, String> r : readCommitted(bootstrap, output)) {
            JsonNode v = JSON.readTree(r.value());
            String order = v.get("order").asText();
            sent.merge(order, 1, Integer::sum);
            JsonNode payment = v.get("payment");
            String expected = paid.get(order);
            JsonNode asOrdered = orders.get(order);
            boolean right = asOrdered != null
                    && asOrdered.get("amount").equals(v.get("amount"))
                    && asOrdered.get("ts").equals(v.get("ts"))
                    && (expected == null
                            ? payment.isNull()
                            : !payment.isNull() && JSON.readTree(expected).equals(payment));
            if (!right && wrong++ < 10) {
                System.out.println("wrong: " + r.value() + ", its payment " + expected);
            }
        }
        int missing = 0;
        int unpaidSent = 0;
        for (Map.Entry<String, Long> o : ts.entrySet()) {
            boolean due = paid.containsKey(o.getKey())
                    || o.getValue() + 660_000 <= maxTs.get(partitionOf.get(o.getKey()));
            if (!paid.containsKey(o.getKey()) && sent.containsKey(o.getKey())) {
                unpaidSent++;
            }
            if (due && !sent.containsKey(o.getKey()) && missing++ < 10) {
                System.out.println("missing: " + o.getKey());
            }
        }
        long twice = sent.values().stream().filter(n -> n > 1).count();
        long unknown = sent.keySet().stream().filter(o -> !ts.containsKey(o)).count();
        System.out.printf(
                "%,d orders, %,d paid: %,d sent (%,d unpaid), %d wrong, %d missing, %d sent more than once, %d unknown%n",
                ts.size(), paid.size(), sent.size(), unpaidSent, wrong, missing, twice, unknown);
        return wrong == 0 && missing == 0 && twice == 0 && unknown == 0;
    }
}
