package io.weir.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weir.dataflow.Channel;
import io.weir.element.InputPartition;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class LagTest {
    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    /** Partitions whose last stable offset the consumer learnt from a fetch; MockConsumer knows every end it was given. */
    private final Set<TopicPartition> fetched = new HashSet<>(List.of(P0, P1));

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest") {
        @Override
        public OptionalLong currentLag(TopicPartition tp) {
            return fetched.contains(tp) ? super.currentLag(tp) : OptionalLong.empty();
        }
    };
    private final Feeds feeds = new Feeds(consumer);
    private long now = 5_000;
    private final Lag lag = new Lag(consumer, feeds, () -> now);

    @Test
    void theLagIsTheEndMinusThePositionReadAgainOnlyOnceASecondUnlessAskedSooner() {
        consumer.assign(List.of(P0, P1));
        consumer.updateEndOffsets(Map.of(P0, 100L, P1, 40L));
        consumer.seek(P0, 30);
        consumer.seek(P1, 40);
        lag.update();
        assertEquals(Map.of(ip(P0), 70L, ip(P1), 0L), lag.current());

        consumer.updateEndOffsets(Map.of(P0, 150L, P1, 40L));
        now += Lag.EVERY_MS - 1;
        lag.update();
        assertEquals(70L, lag.current().get(ip(P0)), "not read again within the second");
        now += 1;
        lag.update();
        assertEquals(120L, lag.current().get(ip(P0)), "read again after it");

        consumer.updateEndOffsets(Map.of(P0, 200L, P1, 40L));
        lag.soon();
        lag.update();
        assertEquals(170L, lag.current().get(ip(P0)), "read at once when asked sooner");
    }

    @Test
    void aPartitionWhoseEndTheConsumerDoesNotKnowIsAskedOfTheBrokerFromTheFeedsPosition() {
        fetched.clear();
        consumer.assign(List.of(P0));
        consumer.updateEndOffsets(Map.of(P0, 60L));
        consumer.seek(P0, 0);
        lag.update();
        assertEquals(Map.of(), lag.current(), "not running and not fetched: absent");

        feeds.add(P0, new Feeds.Feed(ip(P0), new Channel(0, "p0", 16), new Run(Set.of(P0)), 25));
        now += Lag.EVERY_MS;
        lag.update();
        assertEquals(Map.of(ip(P0), 35L), lag.current(), "the broker's end minus the feed's next offset");
    }

    private static InputPartition ip(TopicPartition tp) {
        return new InputPartition(tp.topic(), tp.partition());
    }
}
