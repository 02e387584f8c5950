package io.weir.app;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.config.WeirConfig;
import io.weir.fixtures.KafkaFixture;
import io.weir.fixtures.TotalsJob;
import io.weir.kafka.Topics;
import io.weir.tools.OrderGenerator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

/**
 * What Weir checks of the topics at start, on the real broker: the settings of the topics it keeps
 * its own data in, the partition counts its state was split by, the replication factor it creates
 * topics with.
 */
class InternalTopicsIT {

    private static void create(String topic, Map<String, String> configs) throws Exception {
        KafkaFixture.admin()
                .createTopics(List.of(new NewTopic(topic, Optional.of(1), Optional.empty()).configs(configs)))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    private static Topics.StartupException refusedAtStart(WeirConfig config) {
        Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config));
        try {
            return assertThrows(Topics.StartupException.class, instance::start);
        } finally {
            instance.close();
        }
    }

    private static void produce(TotalsJob job, int orders, long seed) {
        try (OrderGenerator g = new OrderGenerator(KafkaFixture.bootstrap(), job.orders(), 50, seed)) {
            g.send(orders);
        }
    }

    /** The group's committed positions in the job's orders topic, by partition (absent: never committed). */
    private static Map<Integer, org.apache.kafka.clients.consumer.OffsetAndMetadata> committedPositions(TotalsJob job)
            throws Exception {
        Map<Integer, org.apache.kafka.clients.consumer.OffsetAndMetadata> positions = new java.util.HashMap<>();
        KafkaFixture.admin()
                .listConsumerGroupOffsets(job.application())
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS)
                .forEach((tp, offset) -> {
                    if (tp.topic().equals(job.orders())) {
                        positions.put(tp.partition(), offset);
                    }
                });
        return positions;
    }

    @Test
    void anExistingCheckpointTopicThatDeletesByAgeIsRefusedNamingTopicAndSetting() throws Exception {
        TotalsJob job = TotalsJob.create("internal", 2);
        String checkpoints = job.application() + "-checkpoints";
        create(checkpoints, Map.of()); // as auto-creation would: cleanup.policy=delete

        Topics.StartupException e = refusedAtStart(job.config("instance-id=i1"));

        assertTrue(
                e.getMessage().contains("topic " + checkpoints + " has cleanup.policy=delete, Weir needs compact"),
                e.getMessage());
    }

    @Test
    void everyInternalTopicSettingThatWouldLoseRecordsIsNamed() throws Exception {
        String prefix = KafkaFixture.uniqueTopic("settings");
        create(prefix + "-checkpoints", Map.of("cleanup.policy", "compact"));
        create(prefix + "-snapshots", Map.of("cleanup.policy", "compact,delete", "max.message.bytes", "1000000"));
        create(prefix + "-repartition-1", Map.of("retention.ms", "604800000"));
        Topics topics = new Topics(KafkaFixture.admin(), -1);

        Topics.StartupException e = assertThrows(
                Topics.StartupException.class,
                () -> topics.require(Topics.internalRequirements(
                        prefix + "-checkpoints", prefix + "-snapshots", List.of(prefix + "-repartition-1"))));

        List<String> problems = List.of(e.getMessage().split("\n"));
        assertEquals(3, problems.size(), e.getMessage());
        assertTrue(problems.get(0).startsWith("topic " + prefix + "-snapshots has cleanup.policy=compact,delete"));
        assertTrue(problems.get(1).startsWith("topic " + prefix + "-snapshots has max.message.bytes=1000000"));
        assertTrue(problems.get(2).startsWith("topic " + prefix + "-repartition-1 has retention.ms=604800000"));
    }

    @Test
    void topicsWeirCreatesItselfPassItsOwnChecks() throws Exception {
        String prefix = KafkaFixture.uniqueTopic("own");
        Topics topics = new Topics(KafkaFixture.admin(), 1);
        topics.ensureInternal(prefix + "-checkpoints", prefix + "-snapshots");
        topics.ensure(prefix + "-repartition-1", 2, Map.of("retention.ms", "-1"));

        topics.require(Topics.internalRequirements(
                prefix + "-checkpoints", prefix + "-snapshots", List.of(prefix + "-repartition-1")));
    }

    @Test
    void aChangedInputPartitionCountIsRefusedOnceCheckpointsExist() throws Exception {
        TotalsJob job = TotalsJob.create("rescaled", 2);
        WeirConfig config = job.config("instance-id=i1", "processing.checkpoint.interval=200ms");
        produce(job, 500, 1);
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            await().atMost(KafkaFixture.TIMEOUT).until(() -> instance.stats().lastCompletedCheckpoint() > 0);
        }
        KafkaFixture.admin()
                .createPartitions(Map.of(job.orders(), NewPartitions.increaseTo(3)))
                .all()
                .get(30, TimeUnit.SECONDS);
        produce(job, 500, 2); // into all three partitions: a start that ran anything would commit some
        long committedBefore = job.committedInput();
        long writtenBefore = job.outputWritten();

        Topics.StartupException e = refusedAtStart(config);

        assertTrue(
                e.getMessage()
                        .contains("topic " + job.orders() + " has 3 partitions, but the job's checkpoints were"
                                + " taken with 2"),
                e.getMessage());
        // The check runs while the tasks restore; none of them ran before it refused.
        assertEquals(committedBefore, job.committedInput());
        assertEquals(writtenBefore, job.outputWritten());
    }

    @Test
    void aPartitionAddedUnderARunningJobStopsItAndTheNewPartitionNeverRuns() throws Exception {
        TotalsJob job = TotalsJob.create("grown", 2);
        WeirConfig config = job.config(
                "instance-id=i1",
                "processing.checkpoint.interval=200ms",
                "kafka.consumer.metadata.max.age.ms=500"); // the leader sees the change within half a second
        produce(job, 500, 1);
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            await().atMost(KafkaFixture.TIMEOUT).until(() -> job.committedInput() == 500);

            KafkaFixture.admin()
                    .createPartitions(Map.of(job.orders(), NewPartitions.increaseTo(3)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            produce(job, 500, 2); // into all three partitions
            org.apache.kafka.common.TopicPartition added = new org.apache.kafka.common.TopicPartition(job.orders(), 2);
            assertTrue(
                    KafkaFixture.admin()
                                    .listOffsets(Map.of(added, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                                    .partitionResult(added)
                                    .get(30, TimeUnit.SECONDS)
                                    .offset()
                            > 0,
                    "the new partition has records to run");

            await().atMost(KafkaFixture.TIMEOUT).until(instance::stopped);
            Throwable fatal = instance.awaitTermination();
            assertTrue(
                    fatal != null
                            && fatal.getMessage()
                                    .startsWith("topic " + job.orders() + " has 3 partitions, but the job's checkpoints"
                                            + " were taken with 2"),
                    String.valueOf(fatal));
        }
        // Refused, it left the group at once instead of holding its partitions until its session timeout.
        assertEquals(List.of(), KafkaFixture.members(job.application()), "the refused instance left the group");
        // No task of the new partition ran: the group never committed a position in it.
        Map<Integer, org.apache.kafka.clients.consumer.OffsetAndMetadata> committed = committedPositions(job);
        assertTrue(committed.get(2) == null, "committed: " + committed);
        assertTrue(committed.containsKey(0), "committed: " + committed);
    }

    @Test
    void aMemberRefusesAnAddedPartitionThatALeaderWithoutTheCheckAssignsIt() throws Exception {
        // The group's leader is a member that does not compare partition counts (an older version,
        // or one started after the change): the co-partitioned assignor without the counts it
        // started with. It joins first, so it leads; the Weir instance must refuse on its own.
        TotalsJob job = TotalsJob.create("refused", 2);
        WeirConfig config = job.config("instance-id=i1", "processing.checkpoint.interval=200ms");
        produce(job, 500, 4);
        Map<String, Object> leaderConfig = new java.util.HashMap<>(Map.of(
                "bootstrap.servers", KafkaFixture.bootstrap(),
                "group.id", job.application(),
                // After "i1": the assignor's tie-break gives the added partition to i1.
                "group.instance.id", "x-leader-without-the-check",
                "enable.auto.commit", "false",
                "heartbeat.interval.ms", "200",
                "metadata.max.age.ms", "500", // sees the added partition within half a second
                "partition.assignment.strategy", io.weir.kafka.CoPartitionedAssignor.class.getName()));
        java.util.concurrent.atomic.AtomicBoolean leading = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicBoolean joined = new java.util.concurrent.atomic.AtomicBoolean();
        Thread leader = new Thread(() -> {
            try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> c =
                    new org.apache.kafka.clients.consumer.KafkaConsumer<>(
                            leaderConfig,
                            new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                            new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
                c.subscribe(List.of(job.orders()));
                while (leading.get()) {
                    c.poll(java.time.Duration.ofMillis(100));
                    joined.compareAndSet(false, !c.assignment().isEmpty());
                }
            }
        });
        leader.start();
        try {
            await().atMost(KafkaFixture.TIMEOUT).until(joined::get);
            try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
                instance.start();
                await().atMost(KafkaFixture.TIMEOUT).until(() -> job.committedInput() > 0);

                KafkaFixture.admin()
                        .createPartitions(Map.of(job.orders(), NewPartitions.increaseTo(3)))
                        .all()
                        .get(30, TimeUnit.SECONDS);

                await().atMost(KafkaFixture.TIMEOUT).until(instance::stopped);
                Throwable fatal = instance.awaitTermination();
                assertTrue(
                        fatal != null
                                && fatal.getMessage()
                                        .startsWith("topic " + job.orders() + " has more than 2 partitions")
                                && fatal.getMessage().contains("(partition 2 was assigned)"),
                        String.valueOf(fatal));
            }
            assertEquals(
                    List.of("x-leader-without-the-check"),
                    KafkaFixture.members(job.application()),
                    "the refusing instance left the group");
        } finally {
            leading.set(false);
            leader.join();
        }
        Map<Integer, org.apache.kafka.clients.consumer.OffsetAndMetadata> committed = committedPositions(job);
        assertTrue(committed.get(2) == null, "committed: " + committed);
    }

    @Test
    void noWorkerRunsBeforeTheStartUpChecksLetTheExecutionThrough() throws Exception {
        TotalsJob job = TotalsJob.create("gated", 2);
        try (OrderGenerator g = new OrderGenerator(KafkaFixture.bootstrap(), job.orders(), 50, 3)) {
            g.send(200);
        }
        WeirConfig config = job.config("instance-id=i1", "processing.checkpoint.interval=200ms");
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean atGate = new java.util.concurrent.atomic.AtomicBoolean();
        Seams held = new Seams(UnaryOperator.identity(), UnaryOperator.identity(), gate -> () -> {
            atGate.set(true);
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.IOException(e);
            }
            gate.await();
        });
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config), held);
                AutoCloseable opened = release::countDown) { // never leaves the restore thread held
            instance.start();
            await().atMost(KafkaFixture.TIMEOUT).until(atGate::get); // restored, held at the gate
            assertEquals(
                    List.of(),
                    Thread.getAllStackTraces().keySet().stream()
                            .filter(t -> t.isAlive() && t.getName().startsWith("weir-worker-"))
                            .map(Thread::getName)
                            .toList(),
                    "workers started before the gate");
            assertEquals(0, job.outputWritten());
            release.countDown();
            await().atMost(KafkaFixture.TIMEOUT).until(() -> job.committedInput() == 200);
        }
    }

    @Test
    void aJobWithoutCheckpointsMayChangeItsPartitionCount() throws Exception {
        TotalsJob job = TotalsJob.create("fresh", 2);
        WeirConfig config = job.config("instance-id=i1");
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start(); // records 2; nothing read, so no checkpoint
        }
        KafkaFixture.admin()
                .createPartitions(Map.of(job.orders(), NewPartitions.increaseTo(3)))
                .all()
                .get(30, TimeUnit.SECONDS);
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            instance.start();
            assertEquals(false, instance.stopped());
        }
    }

    @Test
    void theConfiguredReplicationFactorIsTheOneTopicsAreCreatedWith() {
        // The test broker is a single node: a replication factor of 2 cannot be met, and saying so
        // shows the setting reaches topic creation.
        TotalsJob job = TotalsJob.create("replication", 2);

        Topics.StartupException e = refusedAtStart(job.config("instance-id=i1", "kafka.replication-factor=2"));

        assertTrue(
                e.getMessage().contains("cannot create topic " + job.application() + "-checkpoints"), e.getMessage());
        assertTrue(e.getMessage().toLowerCase().contains("replication factor"), e.getMessage());
    }
}
