package io.weir.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.element.InputPartition;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A member's own check of what it is assigned against the counts it started with. */
class PartitionCountsTest {
    @Test
    void partitionsWithinTheCountsTheInstanceStartedWithPass() {
        assertNull(PartitionCounts.beyond(
                List.of(new InputPartition("orders", 0), new InputPartition("orders", 1)), Map.of("orders", 2)));
        assertNull(PartitionCounts.beyond(List.of(new InputPartition("payments", 5)), Map.of("orders", 2)));
    }

    @Test
    void aPartitionBeyondTheStartedWithCountIsRefusedNamingTopicPartitionAndCount() {
        String refused = PartitionCounts.beyond(
                List.of(
                        new InputPartition("orders", 1),
                        new InputPartition("orders", 3),
                        new InputPartition("orders", 2)),
                Map.of("orders", 2));

        assertTrue(
                refused.startsWith(
                        "topic orders has more than 2 partitions, but the job's checkpoints were taken with 2"),
                refused);
        assertTrue(refused.contains("(partition 2 was assigned)"), refused); // the lowest one beyond
        assertEquals(1, refused.split("run `weir rescale`", -1).length - 1, refused);
    }
}
