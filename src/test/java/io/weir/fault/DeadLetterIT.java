package io.weir.fault;

import static io.weir.fixtures.KafkaFixture.readAll;
import static io.weir.fixtures.KafkaFixture.readAllCommitted;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.weir.app.Instance;
import io.weir.app.Jobs;
import io.weir.config.WeirConfig;
import io.weir.fixtures.KafkaFixture;
import io.weir.fixtures.RandomKills;
import io.weir.fixtures.TotalsJob;
import io.weir.fixtures.WeirProcess;
import io.weir.tools.OrderGenerator;
import io.weir.tools.RunningTotalsVerifier;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Bad input (docs/architecture.md): a value that is not JSON, or a JSON order without {@code amount}, goes
 * to {@code <application>-dlq} with its original key, value and headers plus headers naming the
 * error and the record's topic, partition and offset; it is counted; the valid orders around it
 * still produce exact running totals. Dead letters are written in the epoch's transaction, so
 * after {@code kill -9} and a restart each bad record is in the read_committed dead-letter topic
 * exactly once.
 */
@ExtendWith(KafkaFixture.class)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class DeadLetterIT {
    private static final int PARTITIONS = 4;
    private static final int USERS = 300;

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void bad_records_are_dead_lettered_with_their_key_value_and_headers_counted_and_processing_goes_on()
            throws Exception {
        TotalsJob job = TotalsJob.create("dead-letters", PARTITIONS);
        KafkaFixture.produce(ordersWithBadRecords(job.orders(), 5_000, 50, 11));
        List<ConsumerRecord<String, String>> bad = badRecords(job);
        WeirConfig config = job.config("instance-id=dead-letters", "processing.checkpoint.interval=200ms");

        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            await(job.application() + " commits positions at the end of its input")
                    .atMost(TotalsJob.CATCH_UP)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        if (instance.stopped()) {
                            throw new AssertionError("the instance stopped", instance.awaitTermination());
                        }
                        return job.caughtUp();
                    });
            assertEquals(bad.size(), instance.counters().deadLetters.sum(), "dead letters counted");
            assertEquals(0, instance.stats().failovers(), "a bad record is no failure");
        }

        assertEachDeadLetteredOnce(job, bad);
        RunningTotalsVerifier.Result totals = job.verify(true);
        assertTrue(totals.ok(), job.application() + ": " + totals);
        assertEquals(5_000, totals.inputs(), "valid orders");
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void each_bad_record_is_in_the_committed_dead_letter_topic_exactly_once_after_kill_dash_nine_and_restarts() {
        long seed = System.getProperty("weir.fault.seed") != null
                ? Long.parseLong(System.getProperty("weir.fault.seed"))
                : System.nanoTime();
        TotalsJob job = TotalsJob.create("dead-letters-killed", PARTITIONS);
        System.out.printf("%s: seed %d (replay with -Dweir.fault.seed=%d)%n", job.application(), seed, seed);
        KafkaFixture.produce(ordersWithBadRecords(job.orders(), 100_000, 200, seed));
        List<ConsumerRecord<String, String>> bad = badRecords(job);

        List<String> kills = new ArrayList<>();
        try (WeirProcess weir = WeirProcess.run(
                job.application(),
                TotalsJob.EXAMPLE,
                job.overrides("instance-id=fault-1", "processing.checkpoint.interval=500ms"))) {
            weir.start();
            RandomKills killer = new RandomKills(job, weir, new Random(seed), 2, 0, 12_000);
            kills.add(killer.killAndRestart());
            kills.add(killer.killAndRestart());
            await(job.application() + " commits positions at the end of its input after " + kills)
                    .atMost(TotalsJob.CATCH_UP)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        weir.assertAlive();
                        return job.caughtUp();
                    });
            weir.stop();
        }

        // Dead letters of aborted epochs stay in the log, hidden from read_committed readers.
        System.out.printf(
                "%s: %d bad records, %d dead letters in the log including aborted ones%n",
                job.application(),
                bad.size(),
                readAll(job.deadLetters(), IsolationLevel.READ_UNCOMMITTED).size());
        assertEachDeadLetteredOnce(job, bad);
        RunningTotalsVerifier.Result totals = job.verify(true);
        assertTrue(totals.ok(), "seed " + seed + ", " + kills + ": " + totals);
        assertEquals(100_000, totals.inputs(), "valid orders");
    }

    /**
     * {@code valid} orders from the order generator with a bad record after every
     * {@code badEvery}-th, each with headers of its own: in turn a value that is not JSON, a JSON
     * order without {@code amount}, and (every third) a value that is not JSON under a null key.
     */
    private static List<ProducerRecord<String, String>> ordersWithBadRecords(
            String topic, int valid, int badEvery, long seed) {
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        Random random = new Random(seed);
        try (OrderGenerator generator = new OrderGenerator(KafkaFixture.bootstrap(), topic, USERS, seed)) {
            for (int i = 1; i <= valid; i++) {
                byte[][] order = generator.next();
                records.add(new ProducerRecord<>(topic, utf8(order[0]), utf8(order[1])));
                if (i % badEvery == 0) {
                    int n = i / badEvery;
                    String user = "u" + random.nextInt(USERS);
                    List<Header> headers = List.of(header("trace-id", "bad-" + n), header("source", "test"));
                    records.add(
                            switch (n % 3) {
                                case 0 ->
                                    new ProducerRecord<>(topic, null, user, "order " + n + " is not JSON", headers);
                                case 1 ->
                                    new ProducerRecord<>(
                                            topic,
                                            null,
                                            user,
                                            "{\"user\":\"" + user + "\",\"seq\":" + n + "}",
                                            headers);
                                default -> new ProducerRecord<>(topic, null, (String) null, "{not json " + n, headers);
                            });
                }
            }
        }
        return records;
    }

    /** The bad records of the input, as the broker stores them (with partition and offset). */
    private static List<ConsumerRecord<String, String>> badRecords(TotalsJob job) {
        List<ConsumerRecord<String, String>> bad = new ArrayList<>();
        for (ConsumerRecord<String, String> r : readAll(job.orders(), IsolationLevel.READ_UNCOMMITTED)) {
            if (r.headers().lastHeader("trace-id") != null) {
                bad.add(r);
            }
        }
        assertTrue(bad.size() > 10, "the input has bad records: " + bad.size());
        return bad;
    }

    /**
     * Every record of the read_committed dead-letter topic points, through its headers, at a bad
     * input record, carries its key, value and headers, and says what was wrong; every bad record has
     * exactly one.
     */
    private static void assertEachDeadLetteredOnce(TotalsJob job, List<ConsumerRecord<String, String>> bad) {
        Map<String, ConsumerRecord<String, String>> byPosition = new HashMap<>();
        bad.forEach(r -> byPosition.put(r.topic() + "/" + r.partition() + "/" + r.offset(), r));
        Map<String, Integer> letters = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        for (ConsumerRecord<String, String> letter : readAllCommitted(job.deadLetters())) {
            String position = text(letter, "weir.topic") + "/" + text(letter, "weir.partition") + "/"
                    + text(letter, "weir.offset");
            letters.merge(position, 1, Integer::sum);
            ConsumerRecord<String, String> original = byPosition.get(position);
            if (original == null) {
                problems.add("a dead letter points at " + position + ", which is no bad input record: " + letter);
                continue;
            }
            if (!java.util.Objects.equals(original.key(), letter.key())
                    || !original.value().equals(letter.value())) {
                problems.add(position + ": dead letter " + letter.key() + "=" + letter.value() + " for input "
                        + original.key() + "=" + original.value());
            }
            List<Header> originalHeaders = Arrays.asList(original.headers().toArray());
            List<Header> letterHeaders = Arrays.asList(letter.headers().toArray());
            if (letterHeaders.size() < originalHeaders.size()
                    || !originalHeaders.equals(letterHeaders.subList(0, originalHeaders.size()))) {
                problems.add(position + ": dead letter headers " + letterHeaders + " do not start with the input's "
                        + originalHeaders);
            }
            String error = text(letter, "weir.error");
            String expected = original.value().contains("\"seq\"") ? "amount" : "not valid JSON";
            if (error == null || !error.contains(expected)) {
                problems.add(position + ": weir.error is '" + error + "', expected it to mention '" + expected + "'");
            }
        }
        letters.forEach((position, count) -> {
            if (count != 1) {
                problems.add(position + " is dead-lettered " + count + " times");
            }
        });
        byPosition.keySet().stream()
                .filter(p -> !letters.containsKey(p))
                .forEach(p -> problems.add(p + " (" + byPosition.get(p).value() + ") is not dead-lettered"));
        if (!problems.isEmpty()) {
            fail(job.deadLetters() + ": " + problems.size() + " problems for " + bad.size() + " bad records, first: "
                    + problems.subList(0, Math.min(10, problems.size())));
        }
    }

    private static String text(ConsumerRecord<String, String> r, String header) {
        Header h = r.headers().lastHeader(header);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static Header header(String key, String value) {
        return new RecordHeader(key, value.getBytes(StandardCharsets.UTF_8));
    }

    private static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
