package io.weir.kafka;

import io.weir.checkpoint.EpochOutput;
import io.weir.checkpoint.TaskCheckpoint;
import io.weir.element.InputPartition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exactly-once producer pool: one transactional producer per open epoch, with the stable
 * transactional ids {@code <app>-<instance-id>-<slot>}; the executions of an instance that run side
 * by side use separate ranges of slots. Every producer is initialised when the pool
 * is created, which aborts whatever transaction a crashed predecessor left open under that id.
 *
 * <p>Transaction Tn of checkpoint n holds the epoch's output, one record per task in
 * {@code <app>-checkpoints}, and the positions Sn sent with the source consumer's group metadata —
 * so an instance that lost its partitions in a rebalance can no longer commit for them. Each offset
 * carries {@code ckpt=<n>} as metadata, which tells a restoring instance which checkpoint record to
 * expect.
 *
 * <p>Threading: {@link #openEpoch} on the coordinator's loop, sends from worker threads,
 * {@link #commit} on the committer thread; the epoch table is concurrent.
 */
public final class TransactionalProducers implements EpochProducers {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionalProducers.class);

    private final String checkpointTopic;
    private final List<KafkaProducer<byte[], byte[]>> slots;
    private final Map<Long, Integer> epochSlot = new ConcurrentHashMap<>();
    private final Map<Long, KafkaEpochOutput> outputs = new ConcurrentHashMap<>();

    public TransactionalProducers(
            KafkaClients clients,
            String transactionalIdPrefix,
            int firstSlot,
            int size,
            long transactionTimeoutMs,
            String checkpointTopic) {
        this.checkpointTopic = checkpointTopic;
        List<KafkaProducer<byte[], byte[]>> created = new ArrayList<>(size);
        try {
            for (int slot = firstSlot; slot < firstSlot + size; slot++) {
                created.add(clients.transactionalProducer(transactionalIdPrefix + slot, transactionTimeoutMs));
            }
            // Each initialisation is a few round trips to the transaction coordinator (and may wait
            // for a predecessor's transaction to be aborted): do them side by side, it is on the
            // restart path.
            List<java.util.concurrent.CompletableFuture<Void>> inits = new ArrayList<>(size);
            for (KafkaProducer<byte[], byte[]> p : created) {
                // A short-lived thread each: the common pool has one thread on a 2-core machine.
                inits.add(java.util.concurrent.CompletableFuture.runAsync(
                        p::initTransactions, r -> new Thread(r, "weir-producer-init").start()));
            }
            for (java.util.concurrent.CompletableFuture<Void> init : inits) {
                try {
                    init.join();
                } catch (java.util.concurrent.CompletionException e) {
                    throw e.getCause() instanceof RuntimeException r ? r : e;
                }
            }
        } catch (RuntimeException e) {
            created.forEach(p -> p.close(Duration.ZERO));
            throw e;
        }
        this.slots = List.copyOf(created);
        LOG.debug(
                "initialised {} transactional producers {}{}..{}",
                size,
                transactionalIdPrefix,
                firstSlot,
                firstSlot + size - 1);
    }

    /**
     * Has every producer fetch the metadata of {@code topics} (which exist) on a thread of its own,
     * without waiting for it: an epoch's first send to a topic and a commit's offsets otherwise
     * wait for that fetch, one round trip each on the way to a restart's first output. A failure
     * is left to the send that meets it.
     */
    public void warmMetadata(java.util.Collection<String> topics) {
        List<String> names = List.copyOf(new java.util.TreeSet<>(topics));
        for (KafkaProducer<byte[], byte[]> p : slots) {
            Thread t = new Thread(
                    () -> {
                        for (String topic : names) {
                            try {
                                p.partitionsFor(topic);
                            } catch (RuntimeException e) {
                                LOG.debug("fetching the metadata of {} ahead failed: {}", topic, e.toString());
                                return; // closed, or the broker unreachable: the sends will tell
                            }
                        }
                    },
                    "weir-producer-metadata");
            t.setDaemon(true);
            t.start();
        }
    }

    /** Aborts whatever a transactional id left open, by initialising a producer under it. */
    public static void abortLeftover(KafkaClients clients, String transactionalId, long transactionTimeoutMs) {
        KafkaProducer<byte[], byte[]> p = clients.transactionalProducer(transactionalId, transactionTimeoutMs);
        try {
            p.initTransactions();
        } finally {
            p.close(Duration.ofSeconds(1)); // it sent nothing: no wait on an unreachable broker
        }
    }

    @Override
    public synchronized boolean canOpenEpoch() {
        return epochSlot.size() < slots.size();
    }

    @Override
    public synchronized void openEpoch(long epoch) {
        if (epochSlot.containsKey(epoch)) {
            return;
        }
        for (int slot = 0; slot < slots.size(); slot++) {
            if (!epochSlot.containsValue(slot)) {
                KafkaProducer<byte[], byte[]> p = slots.get(slot);
                p.beginTransaction();
                epochSlot.put(epoch, slot);
                outputs.put(epoch, new KafkaEpochOutput(epoch, p));
                return;
            }
        }
        throw new IllegalStateException("no producer free for epoch " + epoch + ": " + epochSlot.size()
                + " epochs open with " + slots.size() + " producers");
    }

    @Override
    public EpochOutput output(long epoch) {
        EpochOutput out = outputs.get(epoch);
        if (out == null) {
            throw new IllegalStateException("epoch " + epoch + " is not open (open: " + outputs.keySet() + ")");
        }
        return out;
    }

    @Override
    public void commit(
            long checkpointId, List<TaskCheckpoint> tasks, Map<InputPartition, Long> positions, Object fencingToken) {
        KafkaProducer<byte[], byte[]> p = slots.get(epochSlot.get(checkpointId));
        for (TaskCheckpoint t : tasks) {
            p.send(new ProducerRecord<>(
                    checkpointTopic, t.task().getBytes(StandardCharsets.UTF_8), CheckpointRecords.encode(t)));
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        String metadata = "ckpt=" + checkpointId;
        positions.forEach((ip, offset) ->
                offsets.put(new TopicPartition(ip.topic(), ip.partition()), new OffsetAndMetadata(offset, metadata)));
        // With the source loop's current group metadata (RebalanceHold#commit): a member that lost
        // these partitions has no generation that accepts them.
        ((SourceLoop.GroupCommit) fencingToken).commit(group -> {
            p.sendOffsetsToTransaction(offsets, group);
            p.commitTransaction();
        });
        synchronized (this) {
            epochSlot.remove(checkpointId);
            outputs.remove(checkpointId);
        }
    }

    @Override
    public synchronized boolean abortOpen() {
        boolean all = true;
        for (Map.Entry<Long, Integer> e : epochSlot.entrySet()) {
            try {
                slots.get(e.getValue()).abortTransaction();
            } catch (RuntimeException failure) {
                all = false;
                LOG.debug("aborting the transaction of epoch {} failed: {}", e.getKey(), failure.toString());
            }
        }
        epochSlot.clear();
        outputs.clear();
        return all;
    }

    @Override
    public void close() {
        for (KafkaProducer<byte[], byte[]> p : slots) {
            p.close(Duration.ZERO);
        }
    }
}
