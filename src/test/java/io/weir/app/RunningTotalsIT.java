package io.weir.app;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.config.WeirConfig;
import io.weir.fixtures.KafkaFixture;
import io.weir.fixtures.TotalsJob;
import io.weir.kafka.KafkaClients;
import io.weir.kafka.Topics;
import io.weir.tools.OrderGenerator;
import io.weir.tools.RunningTotalsVerifier;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The running-totals job in-process on a real broker: happy path, backpressure, restart, start-up checks. */
@Timeout(180)
class RunningTotalsIT {
    private static final Duration DEADLINE = Duration.ofSeconds(90);

    /** A running-totals job on fresh topics ({@link TotalsJob}), with extra overrides. */
    private static final class Job {
        final TotalsJob topics = TotalsJob.create("rt", 4);
        final String app = topics.application();
        final String orders = topics.orders();
        final String totals = topics.totals();
        final WeirConfig config;

        Job(String... overrides) {
            List<String> sets = new ArrayList<>(List.of(
                    "instance-id=i1",
                    "processing.checkpoint.interval=200ms",
                    "processing.restart.initial-backoff=100ms"));
            sets.addAll(List.of(overrides));
            config = topics.config(sets.toArray(String[]::new));
        }

        Instance start() throws Exception {
            return start(config);
        }

        /** Another member of the same group, with its own instance id. */
        Instance startPeer(String instanceId) throws Exception {
            return start(new WeirConfig(
                    config.application(),
                    instanceId,
                    config.kafka(),
                    config.processing(),
                    config.deadLetter(),
                    config.http(),
                    config.pipeline()));
        }

        private static Instance start(WeirConfig config) throws Exception {
            Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config));
            instance.start();
            return instance;
        }

        void produce(long count, long seed) {
            try (OrderGenerator g = new OrderGenerator(KafkaFixture.bootstrap(), orders, 200, seed)) {
                g.send(count);
            }
        }

        RunningTotalsVerifier.Result verify(boolean exactlyOnce) {
            return topics.verify(exactlyOnce);
        }

        /** Waits until the read_committed output holds as many records as there are inputs. */
        void awaitVerified(long inputs) {
            await().atMost(DEADLINE).pollInterval(Duration.ofMillis(250)).until(() -> {
                RunningTotalsVerifier.Result r = verify(true);
                return r.outputs() >= inputs && r.ok();
            });
        }
    }

    @Test
    void everyOrderCountsExactlyOnceInTheRunningTotals() throws Exception {
        Job job = new Job();
        job.produce(20_000, 1);
        try (Instance instance = job.start()) {
            job.awaitVerified(20_000);
            assertTrue(instance.stats().lastCompletedCheckpoint() > 0);
        }
        RunningTotalsVerifier.Result result = job.verify(true);
        assertTrue(result.ok(), result.toString());
        assertEquals(20_000, result.inputs());
    }

    @Test
    void tinyChannelsPausePartitionsWithoutLosingOrReorderingRecords() throws Exception {
        Job job = new Job("processing.channel-capacity=2", "processing.threads=1");
        job.produce(10_000, 2);
        try (Instance instance = job.start()) {
            job.awaitVerified(10_000);
        }
        assertTrue(job.verify(true).ok());
    }

    @Test
    void aRestartedInstanceContinuesFromItsLastCheckpoint() throws Exception {
        Job job = new Job();
        job.produce(5_000, 3);
        try (Instance first = job.start()) {
            job.awaitVerified(5_000);
        }
        job.produce(5_000, 4); // seqs restart at 1 for the new generator: totals still add up per order
        try (Instance second = job.start()) {
            job.awaitVerified(10_000);
            await().atMost(DEADLINE).until(() -> second.stats().lastCompletedCheckpoint() > 0);
        }
        RunningTotalsVerifier.Result result = job.verify(true);
        assertTrue(result.ok(), result.toString());
        assertEquals(10_000, result.outputs());
    }

    @Test
    void twoPeersShareThePartitionsAndOneTakesOverWhenTheOtherStops() throws Exception {
        Job job = new Job("kafka.consumer.session.timeout.ms=6000");
        job.produce(10_000, 7);
        try (Instance a = job.start()) {
            job.awaitVerified(10_000);
            try (Instance b = job.startPeer("i2")) {
                await().atMost(DEADLINE).until(() -> a.ready() && b.ready());
                job.produce(10_000, 8);
                job.awaitVerified(20_000);
                assertTrue(b.counters().recordsIn.sum() > 0, "the peer processed none of the new orders");
                assertTrue(
                        a.counters().recordsIn.sum() > 10_000, "the first instance processed none of the new orders");
            }
            // b is gone: after its session times out, a owns all partitions again.
            job.produce(10_000, 9);
            job.awaitVerified(30_000);
        }
        RunningTotalsVerifier.Result result = job.verify(true);
        assertTrue(result.ok(), result.toString());
        assertEquals(30_000, result.outputs());
    }

    @Test
    void aSecondProcessUnderTheSameInstanceIdStopsTheFirstWhichLeavesItsPlaceToIt() throws Exception {
        // Two pods given one instance id (a configuration mistake): the second to join takes the
        // static member's place, the first is fenced and stops with a hint, and its close must not
        // take the second out of the group; the second goes on and the totals stay exact. (Heartbeats
        // every 100 ms: a second taken out would learn it, and rejoin, long before the end.)
        Job job = new Job("kafka.consumer.heartbeat.interval.ms=100");
        job.produce(10_000, 21);
        try (Instance first = job.start()) {
            job.awaitVerified(10_000);
            try (Instance second = job.startPeer("i1")) {
                await().atMost(DEADLINE).until(first::stopped);
                Throwable fatal = first.awaitTermination();
                boolean fenced = false;
                for (Throwable c = fatal; c != null; c = c.getCause()) {
                    fenced |= c instanceof org.apache.kafka.common.errors.FencedInstanceIdException;
                }
                assertTrue(fenced, "stopped by " + fatal);
                // Its consumer is closed now, and the group's one member is the second.
                assertEquals(List.of("i1"), KafkaFixture.members(job.app), "members once the first closed");
                await().atMost(DEADLINE).until(second::ready);
                job.produce(10_000, 22);
                job.awaitVerified(20_000);
                // It took the first one's place with its assignment and kept it.
                assertEquals(1, second.stats().rebalances(), "assignments the second process received");
                assertTrue(second.counters().recordsIn.sum() > 0, "the second process ran no order");
            }
        }
        RunningTotalsVerifier.Result result = job.verify(true);
        assertTrue(result.ok(), result.toString());
        assertEquals(20_000, result.outputs());
    }

    @Test
    void aMemberCommitsThroughTheGroupsRebalancesWithoutFailingOver() throws Exception {
        // Checkpoints every 20 ms: a commit is in flight whenever the group rebalances, and one sent
        // with the generation the rebalance ends fails (ILLEGAL_GENERATION), failing its run over.
        Job job = new Job("processing.checkpoint.interval=20ms");
        java.util.concurrent.atomic.AtomicBoolean producing = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicLong produced = new java.util.concurrent.atomic.AtomicLong();
        Thread orders = new Thread(() -> {
            long seed = 100;
            while (producing.get()) {
                job.produce(500, seed++);
                produced.addAndGet(500);
            }
        });
        try (Instance a = job.start()) {
            await().atMost(DEADLINE).until(a::ready);
            orders.start();
            for (int round = 1; round <= 3; round++) {
                // Each join and each leave is two cooperative rebalances; a keeps partitions in all.
                try (Instance b = job.startPeer("i" + (round + 1))) {
                    await().atMost(DEADLINE).until(() -> a.ready() && b.ready());
                    long seen = b.counters().recordsIn.sum();
                    await().atMost(DEADLINE).until(() -> b.counters().recordsIn.sum() > seen);
                    b.stopGracefully(Duration.ofSeconds(30)); // leaves the group at once
                }
                long before = a.stats().lastCompletedCheckpoint();
                await().atMost(DEADLINE).until(() -> a.stats().lastCompletedCheckpoint() > before + 5);
            }
            producing.set(false);
            orders.join();
            job.awaitVerified(produced.get());
            assertEquals(0, a.stats().failovers(), "runs of the member that stayed failed over");
        } finally {
            producing.set(false);
        }
        RunningTotalsVerifier.Result result = job.verify(true);
        assertTrue(result.ok(), result.toString());
        assertEquals(produced.get(), result.outputs());
    }

    @Test
    void aGracefulStopCommitsEverythingItRead() throws Exception {
        Job job = new Job("processing.checkpoint.interval=5s");
        job.produce(5_000, 10);
        Instance instance = job.start();
        await().atMost(DEADLINE).until(() -> instance.counters().recordsIn.sum() == 5_000);
        instance.stopGracefully(Duration.ofSeconds(30));
        assertTrue(instance.stopped());
        // The last checkpoint committed before stopGracefully returned, but the broker writes a
        // commit's markers into the output partitions after it answered the commit, and a
        // read_committed reader sees a partition's output (its end offset is the last stable
        // offset) only then: wait for them, with no instance running that could redo anything. An
        // epoch the stop left uncommitted was aborted, and its output never appears.
        job.awaitVerified(5_000);
        RunningTotalsVerifier.Result result = job.verify(true);
        assertTrue(result.ok(), result.toString());
        assertEquals(5_000, result.outputs());
    }

    @Test
    void aJobStartedBeforeItsInputTopicExistsWaitsForIt() throws Exception {
        Job job = new Job();
        String later = job.orders + "-later";
        WeirConfig config = job.topics.config(
                "instance-id=i1", "processing.checkpoint.interval=200ms", "pipeline.0.source.topic=" + later);
        Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config));
        java.util.concurrent.CompletableFuture<Void> started = java.util.concurrent.CompletableFuture.runAsync(() -> {
            try {
                instance.start();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try {
            KafkaFixture.createTopic(later, 4);
            try (OrderGenerator g = new OrderGenerator(KafkaFixture.bootstrap(), later, 100, 11)) {
                g.send(2_000);
            }
            started.get(60, java.util.concurrent.TimeUnit.SECONDS); // fails if the missing topic was an error
            await().atMost(DEADLINE).pollInterval(Duration.ofMillis(250)).until(() -> {
                RunningTotalsVerifier.Result r =
                        new RunningTotalsVerifier(KafkaFixture.bootstrap()).verify(later, job.totals, true);
                return r.ok() && r.outputs() == 2_000;
            });
        } finally {
            instance.close();
        }
    }

    @Test
    void atLeastOnceLosesNothing() throws Exception {
        Job job = new Job("processing.guarantee=at-least-once");
        job.produce(10_000, 5);
        try (Instance instance = job.start()) {
            await().atMost(DEADLINE).pollInterval(Duration.ofMillis(250)).until(() -> job.verify(false)
                    .ok());
        }
        assertTrue(job.verify(false).ok());
    }

    @Test
    void aLeftoverTransactionOutsideThePoolIsAbortedAtStart() throws Exception {
        Job job = new Job("processing.checkpoint.max-concurrent=1");
        // A predecessor with a larger pool left transactional id slot 5 open on the output topic.
        KafkaClients clients = KafkaClients.of(KafkaFixture.bootstrap());
        try (KafkaProducer<byte[], byte[]> leftover = clients.transactionalProducer(job.app + "-i1-5", 600_000)) {
            leftover.initTransactions();
            leftover.beginTransaction();
            leftover.send(new ProducerRecord<>(
                            job.totals,
                            "u0".getBytes(StandardCharsets.UTF_8),
                            "{\"user\":\"u0\",\"count\":99}".getBytes(StandardCharsets.UTF_8)))
                    .get();
            leftover.flush();
            job.produce(2_000, 6);
            // The open transaction pins the last stable offset: without the abort, read_committed
            // readers of the output would see nothing for ten minutes.
            try (Instance instance = job.start()) {
                job.awaitVerified(2_000);
            }
        }
        assertTrue(job.verify(true).ok());
    }

    @Test
    void aRestartAbortsWhatItLeftOpenFirstEvenWhileItWaitsForItsInputTopic() throws Exception {
        // The input does not exist yet: the start waits for it, after its producers' initialisation
        // and the transaction checks began. They abort what this instance left open before a crash
        // (under its first block's ids and beyond), which holds back every read_committed reader of
        // the partitions it wrote, first thing.
        Job job = new Job(
                "pipeline.0.source.topic=rt-not-yet-" + java.util.UUID.randomUUID(),
                "processing.checkpoint.max-concurrent=1");
        KafkaClients clients = KafkaClients.of(KafkaFixture.bootstrap());
        List<TopicPartition> written = List.of(new TopicPartition(job.totals, 0), new TopicPartition(job.totals, 1));
        try (Admin admin = clients.admin("rt-lso");
                KafkaProducer<byte[], byte[]> first = clients.transactionalProducer(job.app + "-i1-0", 600_000);
                KafkaProducer<byte[], byte[]> beyond = clients.transactionalProducer(job.app + "-i1-5", 600_000)) {
            List<KafkaProducer<byte[], byte[]>> leftovers = List.of(first, beyond);
            for (int i = 0; i < 2; i++) {
                KafkaProducer<byte[], byte[]> leftover = leftovers.get(i);
                leftover.initTransactions();
                leftover.beginTransaction();
                leftover.send(new ProducerRecord<>(job.totals, i, null, "{}".getBytes(StandardCharsets.UTF_8)))
                        .get();
                assertEquals(0, lastStable(admin, written.get(i)), "an open transaction holds readers at its record");
            }
            Instance instance = new Instance(Jobs.settings(job.config), Jobs.clients(job.config));
            Thread starting = new Thread(() -> {
                try {
                    instance.start();
                } catch (Exception e) {
                    // closed while it waited for the input topic
                }
            });
            starting.start();
            try {
                await().atMost(DEADLINE)
                        .until(() -> lastStable(admin, written.get(0)) > 0 && lastStable(admin, written.get(1)) > 0);
                assertTrue(starting.isAlive(), "the start still waits for its input topic");
            } finally {
                instance.close();
                starting.join();
            }
        }
    }

    private static long lastStable(Admin admin, TopicPartition partition) throws Exception {
        return admin.listOffsets(
                        java.util.Map.of(partition, OffsetSpec.latest()),
                        new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .partitionResult(partition)
                .get()
                .offset();
    }

    @Test
    void aTransactionTimeoutAboveTheBrokersLimitIsRefusedNamingBothSettings() throws Exception {
        Job job = new Job("processing.transaction-timeout=2h");
        Instance instance = new Instance(Jobs.settings(job.config), Jobs.clients(job.config));
        Topics.StartupException e = assertThrows(Topics.StartupException.class, instance::start);
        instance.close();
        assertTrue(e.getMessage().contains("processing.transaction-timeout"), e.getMessage());
        assertTrue(e.getMessage().contains("transaction.max.timeout.ms"), e.getMessage());
    }

    @Test
    void aCheckpointTimeoutTooCloseToTheTransactionTimeoutIsRefusedByTheOneRuleAtLoad() {
        // validate, explain, test and run load through the same rule (TransactionTimeoutRule), so the
        // file is refused before anything starts.
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> new Job("processing.transaction-timeout=40s", "processing.checkpoint.timeout=30s"));
        assertTrue(e.getMessage().contains("processing.transaction-timeout must be longer than"), e.getMessage());
        assertTrue(e.getMessage().contains("2 × checkpoint.timeout + checkpoint.interval"), e.getMessage());
    }
}
