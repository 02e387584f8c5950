package io.weir.app;

import io.weir.checkpoint.TaskCheckpoint;
import io.weir.element.InputPartition;
import io.weir.kafka.CheckpointReader;
import io.weir.kafka.CheckpointRecords;
import io.weir.kafka.KafkaClients;
import io.weir.kafka.PartitionCounts;
import io.weir.kafka.Topics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.utils.Utils;

/**
 * {@code weir rescale}: re-splits a stopped job's state after partitions were added to its inputs.
 * A key's state lives in the task of the partition the key hashes to, so a new count would move
 * keys to tasks that start them from zero; the instance refuses to start instead. This tool reads
 * each affected stage's last completed checkpoint, moves every state entry and timer to the task of
 * its key's partition under the new count (Kafka's default partitioner: murmur2 of the key bytes,
 * as the producers of the inputs and Weir's own repartition topics use), uploads the new tasks'
 * snapshots, and writes their checkpoints (id above every earlier one), the new counts and the
 * group's offsets in one transaction. The old partitions resume from their checkpointed positions,
 * the new ones from their beginning.
 *
 * <p>Refused, committing nothing: while the group has members (every instance must be stopped);
 * when a task of an affected stage has no checkpoint; when co-partitioned inputs of a stage do not
 * have one count; when a task holds state of a key that does not hash to it under the old count;
 * and when an old partition holds records after its checkpoint whose key hashes elsewhere under the
 * new count (written under the old count and not processed yet: their keys' state would be in
 * another task), checked before the split and again before the commit. Open transactions of the
 * job (an instance killed with its transaction open) are aborted first, as a restarting instance
 * does; a dry run only lists them. Every task starts at the highest watermark of the old tasks, so
 * that a record of a moved key's closed window stays late wherever the key went.
 *
 * <p>The plan (which stages' counts changed, what can be split) is {@link RescalePlan}; the re-split
 * of their checkpoints is {@link CheckpointResplit}; this class checks, and commits their result.
 */
public final class Rescaler {
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** How long members found in the group may take to leave before the rescale is refused. */
    static final Duration LEAVE_WAIT = Duration.ofSeconds(10);

    private final InstanceSettings settings;
    private final KafkaClients clients;
    private final Consumer<String> out;
    /** Runs between the split and the second look for unprocessed records (tests write there). */
    private final Runnable afterSplit;

    /** A rescale that must not be done; nothing was committed. */
    public static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    /** {@code out} receives one line per step, for the command's output. */
    public Rescaler(InstanceSettings settings, KafkaClients clients, Consumer<String> out) {
        this(settings, clients, out, () -> {});
    }

    Rescaler(InstanceSettings settings, KafkaClients clients, Consumer<String> out, Runnable afterSplit) {
        this.settings = settings;
        this.clients = clients;
        this.out = out;
        this.afterSplit = afterSplit;
    }

    /**
     * Checks, and unless {@code dryRun} re-splits and commits. Returns whether anything was (or,
     * dry, would be) rescaled.
     */
    public boolean rescale(boolean dryRun) throws Exception {
        String app = settings.application();
        try (Admin admin = clients.admin(app + "-rescale")) {
            requireNoMembers(admin);
            DepartedTransactions transactions = new DepartedTransactions(clients, settings, admin);
            if (dryRun) {
                int open = transactions.own().size();
                if (open > 0) {
                    out.accept(open + " open transaction(s) of the job would be aborted first (a dry run reads"
                            + " only what committed before them)");
                }
            } else {
                int aborted = transactions.abortAll(); // else read_committed reads stop before them
                if (aborted > 0) {
                    out.accept("aborted " + aborted + " open transaction(s) of the job");
                }
            }
            Map<String, Integer> current =
                    new Topics(admin, settings.replicationFactor()).partitions(settings.inputTopics());
            try (CheckpointReader reader = new CheckpointReader(clients, settings.checkpointTopic())) {
                Map<String, Integer> recorded = new PartitionCounts(clients, settings.checkpointTopic(), reader, 1)
                        .recorded(TIMEOUT)
                        .orElse(null);
                if (recorded == null) {
                    out.accept("no partition counts recorded in " + settings.checkpointTopic()
                            + ": the job has no checkpoints to re-split, it starts with any count");
                    return false;
                }
                List<RescalePlan> plans = RescalePlan.plan(settings.stages(), current, recorded, reader);
                if (plans.isEmpty()) {
                    out.accept("the partition counts are those the checkpoints were taken with: nothing to rescale");
                    return false;
                }
                for (RescalePlan plan : plans) {
                    requireProcessed(plan);
                    out.accept("stage " + plan.stage().name() + " "
                            + plan.stage().inputTopics() + ": " + plan.before() + " -> " + plan.after() + " tasks");
                }
                if (dryRun) {
                    out.accept("dry run: nothing written");
                    return true;
                }
                long id = 1
                        + reader.latest(null, TIMEOUT).values().stream()
                                .mapToLong(TaskCheckpoint::checkpointId)
                                .max()
                                .orElse(0);
                Map<String, Integer> counts = new TreeMap<>(recorded);
                counts.putAll(current);
                List<TaskCheckpoint> split = new CheckpointResplit(settings, clients, out).split(plans, id);
                afterSplit.run();
                for (RescalePlan plan : plans) {
                    requireProcessed(plan); // again: a producer may have written under the old count meanwhile
                }
                awaitReadable(admin, commit(id, split, counts));
                out.accept("rescaled: checkpoint " + id + " written; the job starts with the new counts");
                return true;
            }
        }
    }

    /**
     * Refuses while the group has members, after waiting up to {@link #LEAVE_WAIT} for them to go
     * (instances just stopped may still be leaving).
     */
    private void requireNoMembers(Admin admin) throws Exception {
        String group = settings.application();
        long deadline = System.nanoTime() + LEAVE_WAIT.toNanos();
        while (true) {
            List<String> members;
            try {
                members = admin
                        .describeConsumerGroups(List.of(group))
                        .describedGroups()
                        .get(group)
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                        .members()
                        .stream()
                        .map(m -> m.groupInstanceId().orElse(m.consumerId()))
                        .sorted()
                        .toList();
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof GroupIdNotFoundException) {
                    return;
                }
                throw e;
            }
            if (members.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new Refused("the job's consumer group " + group + " has members " + members
                        + ": stop every instance first (an instance killed without leaving stays a member until"
                        + " its session timeout)");
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
    }

    /** A key's partition under {@code count}: Kafka's default partitioner. */
    static int partition(byte[] key, int count) {
        return Utils.toPositive(Utils.murmur2(key)) % count;
    }

    /**
     * Refuses when an old partition holds records after its task's checkpoint whose key belongs to
     * another partition under the new count: they were written under the old count and not
     * processed yet, and after the split their keys' state would be in another task. (Records of
     * a null or empty key stay with their task, as their state does.)
     */
    private void requireProcessed(RescalePlan plan) throws Refused {
        try (KafkaConsumer<byte[], byte[]> c = clients.reader(settings.application() + "-rescale-check", true)) {
            for (String topic : plan.stage().inputTopics()) {
                for (int p = 0; p < plan.before(); p++) {
                    TopicPartition tp = new TopicPartition(topic, p);
                    Long from = plan.checkpoints().get(p).positions().get(new InputPartition(topic, p));
                    if (from == null) {
                        throw new Refused(
                                "checkpoint " + plan.checkpoints().get(p).checkpointId() + " of "
                                        + plan.stage().taskName(p) + " has no position for " + tp);
                    }
                    c.assign(List.of(tp));
                    long end = c.endOffsets(List.of(tp), TIMEOUT).get(tp);
                    c.seek(tp, from);
                    long position = from;
                    long stalledSince = System.nanoTime();
                    while (position < end) {
                        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                            byte[] key = r.key();
                            if (r.offset() < end
                                    && key != null
                                    && key.length > 0
                                    && partition(key, plan.after()) != p) {
                                throw new Refused(tp + " holds records after the last checkpoint (offset " + from
                                        + ") whose keys belong to another partition under the new count, the first at"
                                        + " offset " + r.offset() + ": written before partitions were added (or by a"
                                        + " producer that did not know of them yet) and not processed, they would be"
                                        + " counted without their key's state. Add partitions only once the job has"
                                        + " processed what was written before, with the producers stopped; these"
                                        + " records can only be dropped (kafka-delete-records) or the topic recreated");
                            }
                        }
                        long now = c.position(tp, TIMEOUT);
                        if (now > position) {
                            position = now;
                            stalledSince = System.nanoTime();
                        } else if (System.nanoTime() - stalledSince > TIMEOUT.toNanos()) {
                            throw new Refused("cannot read " + tp + " beyond offset " + position + " (its end is " + end
                                    + ") within " + TIMEOUT.toSeconds() + " s");
                        }
                    }
                }
            }
        }
    }

    /**
     * The rescale's transactional id: shaped like an instance's ({@code <app>-<owner>-<slot>}), so
     * that a transaction a rescale left open (it died in its commit) is the job's to the next
     * rescale, which aborts it, and to the instances, which abort it as a departed member's.
     */
    static String transactionalId(String application) {
        return application + "-rescale-0";
    }

    /**
     * The checkpoints, the counts and the group's offsets, in one transaction. Returns the offset of
     * the last record it wrote to each partition of the checkpoint topic.
     */
    private Map<TopicPartition, Long> commit(long id, List<TaskCheckpoint> checkpoints, Map<String, Integer> counts)
            throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = clients.transactionalProducer(
                transactionalId(settings.application()),
                settings.transactionTimeout().toMillis())) {
            producer.initTransactions();
            producer.beginTransaction();
            List<Future<RecordMetadata>> sent;
            try {
                sent = send(producer, id, checkpoints, counts);
            } catch (RuntimeException e) {
                abort(producer);
                throw e;
            }
            Map<TopicPartition, Long> written = new HashMap<>();
            for (Future<RecordMetadata> f : sent) {
                RecordMetadata m = f.get(); // complete: the commit flushed them
                written.merge(new TopicPartition(m.topic(), m.partition()), m.offset(), Math::max);
            }
            return written;
        }
    }

    /**
     * Waits until read_committed readers see what the commit wrote. The broker writes a
     * transaction's commit markers after the commit returns; an instance started in that moment
     * would still read the old counts and refuse to start.
     */
    private void awaitReadable(Admin admin, Map<TopicPartition, Long> written) throws InterruptedException {
        Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
        written.keySet().forEach(tp -> ends.put(tp, OffsetSpec.latest()));
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        String unconfirmed = "not readable within " + TIMEOUT;
        while (System.nanoTime() < deadline) {
            try {
                var committed = admin.listOffsets(ends, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                        .all()
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                if (written.entrySet().stream()
                        .allMatch(w -> committed.get(w.getKey()).offset() > w.getValue())) {
                    return;
                }
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                unconfirmed = e.toString(); // it committed all the same: the rescale is done
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        out.accept("committed, but not confirmed readable in " + settings.checkpointTopic() + " (" + unconfirmed
                + "): an instance started meanwhile is refused (start it again)");
    }

    private List<Future<RecordMetadata>> send(
            KafkaProducer<byte[], byte[]> producer,
            long id,
            List<TaskCheckpoint> checkpoints,
            Map<String, Integer> counts)
            throws IOException {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (TaskCheckpoint c : checkpoints) {
            sent.add(producer.send(new ProducerRecord<>(
                    settings.checkpointTopic(),
                    c.task().getBytes(StandardCharsets.UTF_8),
                    CheckpointRecords.encode(c))));
            c.positions()
                    .forEach((ip, offset) -> offsets.put(
                            new TopicPartition(ip.topic(), ip.partition()),
                            new OffsetAndMetadata(offset, "ckpt=" + id)));
        }
        sent.add(producer.send(PartitionCounts.record(settings.checkpointTopic(), counts)));
        // Without a member's generation: the broker does not check it for transactional commits. An
        // instance starting meanwhile is refused by its start-up check, which reads the old counts
        // until this is readable (awaitReadable).
        producer.sendOffsetsToTransaction(offsets, new ConsumerGroupMetadata(settings.application()));
        producer.commitTransaction();
        return sent;
    }

    private static void abort(KafkaProducer<byte[], byte[]> producer) {
        try {
            producer.abortTransaction();
        } catch (RuntimeException ignored) {
            // A producer that cannot abort is fenced or failed: the broker aborts after the timeout.
        }
    }
}
