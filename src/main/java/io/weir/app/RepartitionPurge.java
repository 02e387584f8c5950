package io.weir.app;

import io.weir.checkpoint.TaskCheckpoint;
import io.weir.element.InputPartition;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes what every later stage has consumed from the repartition topics: records below the
 * positions of a completed checkpoint are never read again, since every restore starts from the
 * latest completed checkpoint. Runs at most every {@code period} on the housekeeping thread.
 *
 * <p>Threading: {@link #completed} is called by the coordinator's listener; the deletion runs on the
 * housekeeping executor; {@link #due} is confined to the listener's thread.
 */
final class RepartitionPurge {
    private static final Logger LOG = LoggerFactory.getLogger(RepartitionPurge.class);

    private final Set<String> topics;
    private final Admin admin;
    private final ExecutorService housekeeping;
    private final LongSupplier clock;
    private final long periodMs;
    private final Map<InputPartition, Long> positions = new HashMap<>();
    private long due;

    RepartitionPurge(Set<String> topics, Admin admin, ExecutorService housekeeping, LongSupplier clock, long periodMs) {
        this.topics = Set.copyOf(topics);
        this.admin = admin;
        this.housekeeping = housekeeping;
        this.clock = clock;
        this.periodMs = periodMs;
    }

    void completed(List<TaskCheckpoint> tasks) {
        if (topics.isEmpty()) {
            return;
        }
        for (TaskCheckpoint t : tasks) {
            t.positions().forEach((ip, offset) -> {
                if (topics.contains(ip.topic())) {
                    positions.merge(ip, offset, Math::max);
                }
            });
        }
        long now = clock.getAsLong();
        if (positions.isEmpty() || now < due) {
            return;
        }
        due = now + periodMs;
        Map<TopicPartition, RecordsToDelete> delete = new HashMap<>();
        positions.forEach((ip, offset) ->
                delete.put(new TopicPartition(ip.topic(), ip.partition()), RecordsToDelete.beforeOffset(offset)));
        positions.clear();
        housekeeping.execute(() -> {
            try {
                admin.deleteRecords(delete).all().get();
                LOG.debug("purged repartition topics up to {}", delete);
            } catch (Exception e) {
                // Only space is at stake: the next purge deletes up to a later position.
                LOG.debug("purging repartition topics failed: {}", e.toString());
            }
        });
    }
}
