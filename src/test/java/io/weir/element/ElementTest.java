package io.weir.element;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class ElementTest {
    @Test
    void aBarrierNeedsAPositiveCheckpointId() {
        assertThrows(IllegalArgumentException.class, () -> new Barrier(0));
        assertThrows(IllegalArgumentException.class, () -> new Barrier(-3));
        assertEquals(1, new Barrier(1).checkpointId());
    }

    @Test
    void aRecordWithoutHeadersHasAnEmptyList() {
        assertEquals(List.of(), new Record(null, new byte[0], 1, 2, null).headers());
        assertEquals(List.of(), new Record(null, new byte[0], 1, 2).headers());
    }

    @Test
    void anInputPartitionPrintsAndParsesAsTopicDashPartition() {
        InputPartition p = new InputPartition("my-orders", 12);

        assertEquals("my-orders-12", p.toString());
        assertEquals(p, InputPartition.parse("my-orders-12"));
    }

    @Test
    void anInputPartitionRejectsWhatItCannotBe() {
        assertThrows(IllegalArgumentException.class, () -> new InputPartition("", 0));
        assertThrows(IllegalArgumentException.class, () -> new InputPartition(null, 0));
        assertThrows(IllegalArgumentException.class, () -> new InputPartition("t", -1));
        assertThrows(IllegalArgumentException.class, () -> InputPartition.parse("orders"));
        assertThrows(IllegalArgumentException.class, () -> InputPartition.parse("-1"));
        assertThrows(IllegalArgumentException.class, () -> InputPartition.parse("orders-x"));
    }

    @Test
    void inputPartitionsSortByTopicThenPartitionNumber() {
        TreeSet<InputPartition> sorted = new TreeSet<>(
                List.of(new InputPartition("b", 0), new InputPartition("a", 10), new InputPartition("a", 2)));

        assertEquals(
                List.of(new InputPartition("a", 2), new InputPartition("a", 10), new InputPartition("b", 0)),
                List.copyOf(sorted));
        assertTrue(new InputPartition("a", 2).compareTo(new InputPartition("a", 10)) < 0);
    }
}
