package io.weir.app;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.cli.WeirCommand;
import io.weir.config.ConfigLoader;
import io.weir.config.WeirConfig;
import io.weir.fixtures.BucketTotals;
import io.weir.fixtures.KafkaFixture;
import io.weir.fixtures.TotalsJob;
import io.weir.kafka.Topics;
import io.weir.tools.OrderGenerator;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code weir rescale} on the real broker: partitions added to a stopped job's input, its state
 * re-split by the new count, and the job going on with every key counted from its state.
 */
class RescaleIT {
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    private static void produce(TotalsJob job, int orders, long seed) {
        try (OrderGenerator g = new OrderGenerator(KafkaFixture.bootstrap(), job.orders(), 50, seed)) {
            g.send(orders);
        }
    }

    private static void addPartitions(TotalsJob job, int count) throws Exception {
        KafkaFixture.admin()
                .createPartitions(Map.of(job.orders(), NewPartitions.increaseTo(count)))
                .all()
                .get(30, TimeUnit.SECONDS);
        // A producer made from now on partitions by the new count once the new partitions have leaders.
        TopicPartition last = new TopicPartition(job.orders(), count - 1);
        await().atMost(KafkaFixture.TIMEOUT)
                .ignoreExceptions()
                .until(() -> KafkaFixture.admin()
                                .listOffsets(Map.of(last, OffsetSpec.latest()))
                                .partitionResult(last)
                                .get(5, TimeUnit.SECONDS)
                                .offset()
                        >= 0);
    }

    /** The job's input as it is after partitions were added. */
    private static TotalsJob grown(TotalsJob job, int count) {
        return new TotalsJob(job.application(), job.orders(), job.totals(), count, job.stateDir());
    }

    /** The example job of {@code job} as instance i1, checkpointing every 200 ms. */
    private static WeirConfig config(TotalsJob job) {
        return job.config("instance-id=i1", "processing.checkpoint.interval=200ms");
    }

    /** A job on two partitions that ran {@code orders} orders and stopped gracefully. */
    private static TotalsJob ranOnTwoPartitions(String name, int orders) throws Exception {
        TotalsJob job = TotalsJob.create(name, 2);
        produce(job, orders, 1);
        runUntilCaughtUp(job, config(job));
        return job;
    }

    /** Runs the job until it committed positions at the end of its input, then stops it gracefully (it leaves the group). */
    private static void runUntilCaughtUp(TotalsJob job, WeirConfig config) throws Exception {
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            await().atMost(TotalsJob.CATCH_UP).until(job::caughtUp);
            instance.stopGracefully(Duration.ofSeconds(30));
        }
        awaitNoMembers(config.application());
    }

    /**
     * Until the stopped instance is no member of the group. (Once in about a dozen runs one was
     * still listed beyond the rescale's own 10 s wait; a static member that did not leave goes at
     * its session timeout.)
     */
    private static void awaitNoMembers(String group) {
        await("the group " + group + " has no members")
                .atMost(Duration.ofSeconds(90))
                .until(() -> KafkaFixture.members(group).isEmpty());
    }

    private record Run(int code, String out, String err) {}

    private static Run weir(TotalsJob job, String... args) {
        return weir(TotalsJob.EXAMPLE, job.overrides("instance-id=i1"), args);
    }

    /** {@code weir rescale --config config --set …} in this JVM. */
    private static Run weir(Path config, List<String> sets, String... args) {
        List<String> all = new ArrayList<>(List.of("rescale", "--config", config.toString()));
        for (String set : sets) {
            all.add("--set");
            all.add(set);
        }
        all.addAll(List.of(args));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        picocli.CommandLine cli = WeirCommand.commandLine(all.toArray(String[]::new));
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(all.toArray(String[]::new));
        return new Run(code, out.toString(), err.toString());
    }

    private static long end(String topic) throws Exception {
        TopicPartition tp = new TopicPartition(topic, 0);
        return KafkaFixture.admin()
                .listOffsets(Map.of(tp, OffsetSpec.latest()))
                .partitionResult(tp)
                .get(30, TimeUnit.SECONDS)
                .offset();
    }

    /**
     * An instance of {@code config} refuses to start, and leaves the group as it stops: its consumer
     * may have joined while the counts were compared, and a static member that stays blocks a
     * rescale (and holds its partitions) until its session timeout.
     */
    private static Topics.StartupException refusedAtStart(WeirConfig config) throws Exception {
        Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config));
        Topics.StartupException refused;
        try {
            refused = assertThrows(Topics.StartupException.class, instance::start);
        } finally {
            instance.close();
        }
        assertEquals(List.of(), KafkaFixture.members(config.application()), "the refused instance left the group");
        return refused;
    }

    @ParameterizedTest
    @CsvSource({"rocksdb, exactly-once", "memory, at-least-once"})
    void aRescaledJobCountsEveryKeyOnFromItsStateWhereverTheKeyNowLives(String backend, String guarantee)
            throws Exception {
        TotalsJob job = TotalsJob.create("rescale", 2);
        List<String> sets = job.overrides(
                "instance-id=i1",
                "processing.checkpoint.interval=200ms",
                "processing.state.backend=" + backend,
                "processing.guarantee=" + guarantee);
        WeirConfig config = new ConfigLoader().load(TotalsJob.EXAMPLE, Map.of(), sets);
        produce(job, 1_000, 1);
        runUntilCaughtUp(job, config);
        addPartitions(job, 3); // 2 -> 3: keys move between old partitions too, not only to the new one
        // Orders written after the change, before the rescale: the new partition's from its beginning.
        produce(job, 300, 3);
        long checkpointsBefore = end(job.checkpoints());

        Run dry = weir(TotalsJob.EXAMPLE, sets, "--dry-run");
        assertEquals(0, dry.code(), dry.err());
        assertTrue(
                dry.out().contains("stage " + job.application() + " [" + job.orders() + "]: 2 -> 3 tasks"), dry.out());
        assertEquals(checkpointsBefore, end(job.checkpoints()), "a dry run writes nothing");
        refusedAtStart(config);

        Run rescaled = weir(TotalsJob.EXAMPLE, sets);
        assertEquals(0, rescaled.code(), rescaled.err() + rescaled.out());
        java.util.regex.Matcher moved = java.util.regex.Pattern.compile("(\\d+) state entries, (\\d+) moved")
                .matcher(rescaled.out());
        assertTrue(moved.find(), rescaled.out());
        assertEquals(50, Long.parseLong(moved.group(1)), "one entry per user: " + rescaled.out());
        assertTrue(Long.parseLong(moved.group(2)) > 0, "some users' state moved: " + rescaled.out());

        // Orders of every user after the change, in all three partitions; users whose state moved
        // would restart their counts from zero if the split had lost them.
        produce(job, 700, 2);
        TotalsJob after = grown(job, 3);
        runUntilCaughtUp(after, config);
        // Per user, the outputs count 1, 2, … up to its number of orders, and the last sum is the sum
        // of its amounts. (The verifier orders a user's inputs by partition, which no longer holds
        // for a user whose later orders went to another partition.)
        Map<String, long[]> orders = new TreeMap<>();
        for (var r : KafkaFixture.readAll(job.orders(), IsolationLevel.READ_UNCOMMITTED)) {
            long[] n = orders.computeIfAbsent(r.key(), k -> new long[2]);
            n[0]++;
            n[1] += JSON.readTree(r.value()).get("amount").asLong();
        }
        Map<String, List<Long>> counts = new TreeMap<>();
        Map<String, Long> lastSum = new TreeMap<>();
        for (var r : KafkaFixture.readAllCommitted(job.totals())) {
            var total = JSON.readTree(r.value());
            counts.computeIfAbsent(r.key(), k -> new ArrayList<>())
                    .add(total.get("count").asLong());
            lastSum.put(r.key(), total.get("sum").asLong());
        }
        assertEquals(2_000, orders.values().stream().mapToLong(n -> n[0]).sum());
        assertEquals(orders.keySet(), counts.keySet());
        orders.forEach((user, n) -> {
            List<Long> expected = LongStream.rangeClosed(1, n[0]).boxed().toList();
            assertEquals(expected, counts.get(user), user + "'s counts");
            assertEquals(n[1], lastSum.get(user), user + "'s sum");
        });

        Run again = weir(TotalsJob.EXAMPLE, sets);
        assertEquals(0, again.code(), again.err());
        assertTrue(again.out().contains("nothing to rescale"), again.out());
    }

    @Test
    void bothStagesOfAJobWithARepartitionTopicAreReSplitInOneRescale() throws Exception {
        String app = KafkaFixture.uniqueTopic("rescale-buckets");
        String orders = KafkaFixture.createTopic(app + "-orders", 2);
        String out = KafkaFixture.createTopic(app + "-out", 2);
        Path example = Path.of("config", "examples", "bucket-totals.yaml");
        List<String> sets = sets(app, "pipeline.0.source.topic=" + orders, "pipeline.3.sink.topic=" + out);
        WeirConfig config = new ConfigLoader().load(example, Map.of(), sets);
        BucketTotals expected = new BucketTotals();
        sendOrders(orders, 0, 500, expected);
        runUntilCommitted(config, out, 500);
        String repartition = app + "-repartition-1";
        KafkaFixture.admin()
                .createPartitions(Map.of(orders, NewPartitions.increaseTo(3), repartition, NewPartitions.increaseTo(4)))
                .all()
                .get(30, TimeUnit.SECONDS);

        Run rescaled = weir(example, sets);

        assertEquals(0, rescaled.code(), rescaled.err() + rescaled.out());
        assertTrue(rescaled.out().contains("stage " + app + " [" + orders + "]: 2 -> 3 tasks"), rescaled.out());
        assertTrue(rescaled.out().contains("[" + repartition + "]: 2 -> 4 tasks"), rescaled.out());
        // Ten buckets' totals were re-split over four tasks.
        assertTrue(rescaled.out().contains(": 10 state entries, "), rescaled.out());
        sendOrders(orders, 500, 500, expected);
        runUntilCommitted(config, out, 1_000);
        expected.verify(KafkaFixture.readAllCommitted(out), "after the rescale");
    }

    @Test
    void windowsAndTheirTimersMoveWithTheirKeysAndAClosedMinuteStaysClosedInANewTask() throws Exception {
        String app = KafkaFixture.uniqueTopic("rescale-minutes");
        String events = KafkaFixture.createTopic(app + "-events", 2);
        String out = KafkaFixture.createTopic(app + "-out", 2);
        String late = KafkaFixture.createTopic(app + "-late", 1);
        Path example = Path.of("config", "examples", "user-counts-per-minute.yaml");
        List<String> sets = sets(
                app, "pipeline.0.source.topic=" + events, "pipeline.2.sink.topic=" + out, "dead-letter.topic=" + late);
        WeirConfig config = new ConfigLoader().load(example, Map.of(), sets);
        // 20 users, an event every 500 ms of event time: minutes 0-2 close, minute 3 stays open.
        Map<String, Long> perUserMinute = new TreeMap<>();
        sendEvents(events, 0, 420, perUserMinute);
        runUntilCommitted(config, out, 60);
        KafkaFixture.admin()
                .createPartitions(Map.of(events, NewPartitions.increaseTo(3)))
                .all()
                .get(30, TimeUnit.SECONDS);
        Run rescaled = weir(example, sets);
        assertEquals(0, rescaled.code(), rescaled.err() + rescaled.out());
        assertTrue(rescaled.out().contains("every task starts at watermark"), rescaled.out());

        // First in the new partition: an event of minute 1, closed in the task its user came from.
        String moved = null;
        for (int u = 0; moved == null; u++) {
            byte[] key = ("u" + u).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            moved = Utils.toPositive(Utils.murmur2(key)) % 3 == 2 ? "u" + u : null;
        }
        produceFresh(List.of(new org.apache.kafka.clients.producer.ProducerRecord<>(
                events,
                2,
                moved,
                "{\"user\":\"" + moved + "\",\"amount\":1,\"ts\":" + (EVENT_TIME_ZERO + 70_000) + "}")));
        sendEvents(events, 420, 360, perUserMinute); // up to 6.5 min: minutes 3-5 close
        runUntilCommitted(config, out, 120);

        Map<String, Long> counted = new TreeMap<>();
        for (var r : KafkaFixture.readAllCommitted(out)) {
            var v = JSON.readTree(r.value());
            String window = v.get("user").asText() + "@" + (v.get("windowStart").asLong() - EVENT_TIME_ZERO) / 60_000;
            assertEquals(
                    null, counted.put(window, v.get("count").asLong()), "one result per user and minute: " + window);
        }
        perUserMinute.keySet().removeIf(w -> w.endsWith("@6")); // minute 6 is still open
        assertEquals(perUserMinute, counted);
        assertEquals(1, KafkaFixture.readAllCommitted(late).size(), "the event of a closed minute is late");
    }

    /**
     * Minute 0 of the windows test's event time: a whole minute ten minutes ago. (The output records
     * carry the windows' times, and the broker's retention deletes records older than seven days:
     * minutes of 1970 vanish at its first retention check, 30 s after it started.)
     */
    private static final long EVENT_TIME_ZERO = System.currentTimeMillis() / 60_000 * 60_000 - 600_000;

    /** {@code n} events from index {@code from} (event time: 500 ms apart), counted per user and minute. */
    private static void sendEvents(String topic, int from, int n, Map<String, Long> perUserMinute) throws Exception {
        List<org.apache.kafka.clients.producer.ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            String user = "u" + (i % 20);
            long ts = i * 500L;
            perUserMinute.merge(user + "@" + ts / 60_000, 1L, Long::sum);
            ts += EVENT_TIME_ZERO;
            records.add(new org.apache.kafka.clients.producer.ProducerRecord<>(
                    topic, user, "{\"user\":\"" + user + "\",\"amount\":1,\"ts\":" + ts + "}"));
        }
        produceFresh(records);
    }

    /**
     * Writes {@code records} with a producer of their own: one made before partitions were added
     * would go on partitioning by the old count until its metadata refreshes (as the docs warn).
     */
    private static void produceFresh(List<org.apache.kafka.clients.producer.ProducerRecord<String, String>> records)
            throws Exception {
        try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<>(
                KafkaFixture.producerConfig(),
                new org.apache.kafka.common.serialization.StringSerializer(),
                new org.apache.kafka.common.serialization.StringSerializer())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (var r : records) {
                sent.add(producer.send(r));
            }
            for (var f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
    }

    /** The overrides that run an example job on this broker as application {@code app}, then {@code extra}. */
    private static List<String> sets(String app, String... extra) {
        List<String> sets = new ArrayList<>(List.of(
                "kafka.bootstrap=" + KafkaFixture.bootstrap(),
                "application=" + app,
                "instance-id=i1",
                "processing.checkpoint.interval=200ms",
                "processing.state.dir=" + Path.of("target", "fault-state", app).toAbsolutePath()));
        sets.addAll(List.of(extra));
        return sets;
    }

    /** {@code n} orders from sequence number {@code from}, each counted into {@code expected}. */
    private static void sendOrders(String topic, int from, int n, BucketTotals expected) throws Exception {
        List<org.apache.kafka.clients.producer.ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            long amount = 1 + (i * 37L) % 100;
            expected.order(amount);
            records.add(new org.apache.kafka.clients.producer.ProducerRecord<>(
                    topic,
                    "u" + (i % 40),
                    "{\"user\":\"u" + (i % 40) + "\",\"amount\":" + amount + ",\"seq\":" + i + "}"));
        }
        produceFresh(records);
    }

    private static void runUntilCommitted(WeirConfig config, String out, int outputs) throws Exception {
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            await().atMost(TotalsJob.CATCH_UP)
                    .until(() -> KafkaFixture.readAllCommitted(out).size() >= outputs);
            instance.stopGracefully(Duration.ofSeconds(30));
        }
        awaitNoMembers(config.application());
    }

    @Test
    void recordsWrittenUnderTheOldCountAndNotProcessedYetRefuseTheRescaleAndNothingIsWritten() throws Exception {
        TotalsJob job = ranOnTwoPartitions("rescale-unprocessed", 500);
        WeirConfig config = config(job);
        produce(job, 500, 2); // under the old count, after the last checkpoint
        addPartitions(job, 3);
        long checkpointsBefore = end(job.checkpoints());

        Run refused = weir(job);

        assertEquals(1, refused.code(), refused.out());
        assertTrue(
                refused.err().contains("after the last checkpoint")
                        && refused.err().contains("written before partitions were added"),
                refused.err());
        assertEquals(checkpointsBefore, end(job.checkpoints()));
        refusedAtStart(config); // the counts the checkpoints were taken with still stand
    }

    @Test
    void recordsWrittenUnderTheOldCountWhileTheStateIsSplitRefuseTheCommit() throws Exception {
        // The first look found nothing unprocessed; a producer that did not know of the new
        // partitions yet wrote meanwhile: the look before the commit must find it.
        TotalsJob job = ranOnTwoPartitions("rescale-meanwhile", 500);
        addPartitions(job, 3);
        long checkpointsBefore = end(job.checkpoints());
        String elsewhere = java.util.stream.IntStream.range(0, 1000)
                .mapToObj(i -> "late-" + i)
                .filter(k -> Rescaler.partition(k.getBytes(StandardCharsets.UTF_8), 3) != 0)
                .findFirst()
                .orElseThrow();
        WeirConfig config = config(job);
        List<String> out = new ArrayList<>();
        Rescaler rescaler = new Rescaler(Jobs.settings(config), Jobs.clients(config), out::add, () -> {
            try {
                produceFresh(List.of(new org.apache.kafka.clients.producer.ProducerRecord<>(
                        job.orders(), 0, elsewhere, "{\"user\":\"" + elsewhere + "\",\"amount\":1}")));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });

        Rescaler.Refused refused = assertThrows(Rescaler.Refused.class, () -> rescaler.rescale(false));

        assertTrue(refused.getMessage().contains("written before partitions were added"), refused.getMessage());
        assertEquals(checkpointsBefore, end(job.checkpoints()), "nothing committed");
        refusedAtStart(config); // the counts the checkpoints were taken with still stand
    }

    @Test
    void stateOfAKeyReadFromAPartitionItDoesNotHashToIsRefusedWithExitCode1() throws Exception {
        TotalsJob job = TotalsJob.create("rescale-stray", 2);
        WeirConfig config = config(job);
        produce(job, 200, 1);
        String stray = null; // a key of partition 1, written to partition 0 by hand
        for (int u = 0; stray == null; u++) {
            byte[] key = ("x" + u).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            stray = Utils.toPositive(Utils.murmur2(key)) % 2 == 1 ? "x" + u : null;
        }
        KafkaFixture.produce(List.of(new org.apache.kafka.clients.producer.ProducerRecord<>(
                job.orders(), 0, stray, "{\"user\":\"" + stray + "\",\"amount\":1,\"seq\":1}")));
        runUntilCaughtUp(job, config);
        addPartitions(job, 3);
        long checkpointsBefore = end(job.checkpoints());

        Run refused = weir(job);

        assertEquals(1, refused.code(), refused.err() + refused.out());
        assertTrue(
                refused.err().contains("task 0 holds state of a key that belongs to partition 1 (key '" + stray + "')"),
                refused.err());
        assertEquals(checkpointsBefore, end(job.checkpoints()));
    }

    /**
     * @param owner whose transaction was left open: an instance killed with its epoch's transaction
     *     open, or a rescale that died in its commit (its id must be one the job's tools find)
     */
    @ParameterizedTest
    @ValueSource(strings = {"i7", "rescale"})
    void aDryRunListsAnOpenTransactionOfTheJobAndTheRescaleAbortsIt(String owner) throws Exception {
        TotalsJob job = ranOnTwoPartitions("rescale-open-" + owner, 200);
        addPartitions(job, 3);
        // Output and a checkpoint record written, nothing committed; the broker would abort it in
        // ten minutes.
        String id = "i7".equals(owner) ? job.application() + "-i7-0" : Rescaler.transactionalId(job.application());
        Map<String, Object> p = new java.util.HashMap<>(KafkaFixture.producerConfig());
        p.put(org.apache.kafka.clients.producer.ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
        p.put(org.apache.kafka.clients.producer.ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 600_000);
        try (var killed = new org.apache.kafka.clients.producer.KafkaProducer<>(
                p,
                new org.apache.kafka.common.serialization.ByteArraySerializer(),
                new org.apache.kafka.common.serialization.ByteArraySerializer())) {
            killed.initTransactions();
            killed.beginTransaction();
            killed.send(new org.apache.kafka.clients.producer.ProducerRecord<>(job.totals(), 0, null, "{}".getBytes()));
            killed.send(new org.apache.kafka.clients.producer.ProducerRecord<>(
                    job.checkpoints(), 0, "x-0".getBytes(), "{}".getBytes()));
            killed.flush();
            String app = job.application();

            Run dry = weir(job, "--dry-run");

            assertEquals(0, dry.code(), dry.err());
            assertTrue(dry.out().contains("1 open transaction(s) of the job would be aborted first"), dry.out());
            assertEquals(
                    List.of(id),
                    new io.weir.kafka.OpenTransactions(KafkaFixture.admin(), app)
                            .list().stream()
                                    .map(io.weir.kafka.OpenTransactions.Open::transactionalId)
                                    .toList(),
                    "a dry run leaves it open");

            Run rescaled = weir(job);

            assertEquals(0, rescaled.code(), rescaled.err() + rescaled.out());
            assertTrue(rescaled.out().contains("aborted 1 open transaction(s) of the job"), rescaled.out());
            // (A transaction the broker is completing is listed for a moment after its end.)
            await("no transaction of the job left open")
                    .atMost(KafkaFixture.TIMEOUT)
                    .until(() -> new io.weir.kafka.OpenTransactions(KafkaFixture.admin(), app)
                            .list()
                            .isEmpty());
        }
    }

    @Test
    void aRescaleIsRefusedWhileAnInstanceOfTheJobRuns() throws Exception {
        TotalsJob job = TotalsJob.create("rescale-running", 2);
        WeirConfig config = config(job);
        produce(job, 200, 1);
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            await().atMost(TotalsJob.CATCH_UP).until(job::caughtUp);

            Run refused = weir(job);

            assertEquals(1, refused.code(), refused.out());
            assertTrue(refused.err().contains("has members [i1]: stop every instance first"), refused.err());
        }
    }
}
