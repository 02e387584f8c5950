package io.weir.app;

import io.weir.element.InputPartition;
import io.weir.kafka.KafkaClients;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadFactory;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the group's committed offsets for restores: per assigned partition, the checkpoint its
 * offset was committed with ({@code ckpt=<n>}). It reads read_committed, so it waits for pending
 * transactional offsets to resolve.
 *
 * <p>Its consumer is made when the instance starts and asks once, on a thread of its own, for an
 * offset the group never commits (partition 0 of the checkpoint topic, so no pending transaction
 * holds the answer up): the first restore's question then goes straight to the group's coordinator
 * instead of finding it and connecting first, which took a member joining a busy group 150–350 ms.
 *
 * <p>Threading: {@link #checkpoints} on the restore thread only; {@link #close} once the restores
 * ended.
 */
final class CommittedOffsets implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CommittedOffsets.class);

    private final KafkaClients clients;
    private final String group;
    private final String clientId;
    /** The consumer made at the start, for the first restore; null once taken. */
    private volatile CompletableFuture<KafkaConsumer<byte[], byte[]>> ahead;
    /** The restore thread's consumer; null until the first restore, or after a failed question. */
    private KafkaConsumer<byte[], byte[]> consumer;

    /** Starts making the consumer (and finding the group's coordinator) on a thread from {@code threads}. */
    CommittedOffsets(
            KafkaClients clients, String group, String clientId, String checkpointTopic, ThreadFactory threads) {
        this.clients = clients;
        this.group = group;
        this.clientId = clientId;
        CompletableFuture<KafkaConsumer<byte[], byte[]>> made = new CompletableFuture<>();
        TopicPartition neverCommitted = new TopicPartition(checkpointTopic, 0);
        threads.newThread(() -> {
                    KafkaConsumer<byte[], byte[]> c = null;
                    try {
                        c = clients.offsetReader(group, clientId);
                        c.committed(Set.of(neverCommitted), Duration.ofSeconds(30));
                        made.complete(c);
                    } catch (Throwable t) {
                        if (c != null) {
                            c.close(Duration.ZERO);
                        }
                        made.completeExceptionally(t); // the first restore makes its own
                    }
                })
                .start();
        ahead = made;
    }

    /** Per partition of {@code assigned} with a committed offset, the checkpoint id it names. */
    Map<InputPartition, Long> checkpoints(Set<InputPartition> assigned) {
        if (consumer == null) {
            consumer = takeAhead();
        }
        if (consumer == null) {
            consumer = clients.offsetReader(group, clientId);
        }
        Set<TopicPartition> partitions = new HashSet<>();
        assigned.forEach(ip -> partitions.add(new TopicPartition(ip.topic(), ip.partition())));
        Map<TopicPartition, OffsetAndMetadata> committed;
        try {
            committed = consumer.committed(partitions, Duration.ofMinutes(1));
        } catch (RuntimeException e) {
            // The next restore asks with a new consumer.
            try {
                consumer.close(Duration.ZERO);
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            } finally {
                consumer = null;
            }
            throw e;
        }
        Map<InputPartition, Long> checkpoints = new HashMap<>();
        committed.forEach((tp, om) -> {
            if (om != null && om.metadata() != null && om.metadata().startsWith("ckpt=")) {
                checkpoints.put(
                        new InputPartition(tp.topic(), tp.partition()),
                        Long.parseLong(om.metadata().substring(5)));
            }
        });
        return checkpoints;
    }

    /** The consumer made at the start, once, waiting for it; null if its making failed. */
    private KafkaConsumer<byte[], byte[]> takeAhead() {
        CompletableFuture<KafkaConsumer<byte[], byte[]>> made = ahead;
        ahead = null;
        if (made == null) {
            return null;
        }
        try {
            return made.join();
        } catch (CompletionException | CancellationException e) {
            LOG.debug("the offset reader made at the start failed: {}", e.toString());
            return null;
        }
    }

    @Override
    public void close() {
        if (consumer != null) {
            consumer.close(Duration.ofSeconds(5));
            consumer = null;
        }
        CompletableFuture<KafkaConsumer<byte[], byte[]>> made = ahead; // no restore took it
        if (made != null) {
            ahead = null;
            made.thenAccept(c -> c.close(Duration.ZERO));
        }
    }
}
