package io.weir.dataflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.element.Barrier;
import io.weir.element.Element;
import io.weir.element.Record;
import io.weir.element.Watermark;
import org.junit.jupiter.api.Test;

class ChannelTest {
    private static Record record(long offset) {
        return new Record(new byte[] {1}, new byte[] {2}, offset, offset);
    }

    @Test
    void elementsComeOutInTheOrderTheyWentIn() {
        Channel channel = new Channel(0, "in-0", 10);
        Element[] in = {record(0), new Barrier(1), record(1), new Watermark(5)};
        for (Element e : in) {
            channel.put(e);
        }

        for (Element e : in) {
            assertSame(e, channel.peek());
            assertSame(e, channel.poll());
        }
        assertNull(channel.poll());
        assertTrue(channel.isEmpty());
    }

    @Test
    void theCapacityCountsRecordsOnly() {
        Channel channel = new Channel(0, "in-0", 2);
        channel.put(record(0));
        channel.put(new Barrier(1));
        channel.put(new Watermark(1));
        assertEquals(1, channel.remainingCapacity());

        channel.put(record(1));
        channel.put(record(2)); // over the bound: still accepted, the source loop pauses instead
        assertEquals(0, channel.remainingCapacity());

        channel.poll();
        channel.poll(); // the barrier frees nothing
        assertEquals(0, channel.remainingCapacity());
        channel.poll();
        channel.poll();
        assertEquals(1, channel.remainingCapacity());
    }

    @Test
    void aChannelNeedsRoomForARecord() {
        assertThrows(IllegalArgumentException.class, () -> new Channel(0, "in-0", 0));
    }
}
