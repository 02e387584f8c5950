package io.weir.kafka;

import io.weir.element.InputPartition;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records between each assigned partition's next offset to process and its end (read_committed:
 * the last stable offset), refreshed about once a second. Updated on the source loop's thread; read
 * from any.
 */
final class Lag {
    private static final Logger LOG = LoggerFactory.getLogger(Lag.class);
    static final long EVERY_MS = 1000;

    private final Consumer<byte[], byte[]> consumer;
    private final Feeds feeds;
    private final LongSupplier clock;
    private volatile Map<InputPartition, Long> current = Map.of();
    private long next;

    Lag(Consumer<byte[], byte[]> consumer, Feeds feeds, LongSupplier clock) {
        this.consumer = consumer;
        this.feeds = feeds;
        this.clock = clock;
    }

    /**
     * By partition; a partition whose lag is not known (never fetched by the consumer and not
     * running, or the broker did not answer) is absent.
     */
    Map<InputPartition, Long> current() {
        return current;
    }

    /** The next {@link #update} reads the lag whenever it was last read (partitions started running). */
    void soon() {
        next = 0;
    }

    /** Reads the lag again if it is due. */
    void update() {
        long now = clock.getAsLong();
        if (now < next) {
            return;
        }
        next = now + EVERY_MS;
        Map<InputPartition, Long> l = new HashMap<>();
        Map<TopicPartition, Long> unknown = new HashMap<>();
        for (TopicPartition tp : consumer.assignment()) {
            InputPartition ip = Run.input(tp);
            Long nextOffset = feeds.nextOffset(tp);
            consumer.currentLag(tp).ifPresentOrElse(v -> l.put(ip, v), () -> {
                if (nextOffset != null) {
                    unknown.put(tp, nextOffset);
                }
            });
        }
        // The consumer knows the last stable offset only from fetch responses; until then (or for a
        // partition it has not fetched lately) ask the broker: read_committed, so this is the LSO too.
        if (!unknown.isEmpty()) {
            try {
                consumer.endOffsets(unknown.keySet(), Duration.ofSeconds(1))
                        .forEach((tp, end) -> l.put(Run.input(tp), Math.max(0, end - unknown.get(tp))));
            } catch (KafkaException e) {
                LOG.debug("reading end offsets for the lag failed: {}", e.toString());
            }
        }
        current = Map.copyOf(l);
    }
}
