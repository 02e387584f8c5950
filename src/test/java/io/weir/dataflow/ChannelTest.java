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

    /**
     * A writer and a reader on their own threads, as the source loop and a worker: the writer
     * holds back whenever the channel is full and waits to be woken (a lost wake-up hangs it until
     * the deadline), the reader takes everything, across many of the queue's chunks, in order.
     */
    @Test
    void aWriterAndAReaderOnTheirOwnThreadsPassEveryElementInOrderAndNoWakeUpIsLost() throws Exception {
        int count = 300_000;
        Channel channel = new Channel(0, "in-0", 1); // the writer waits at every record
        java.util.concurrent.Semaphore woken = new java.util.concurrent.Semaphore(0);
        Thread writer = new Thread(() -> {
            for (int i = 0; i < count; i++) {
                while (channel.remainingCapacity() == 0) {
                    if (channel.wakeWhenDrained(woken::release)) {
                        woken.acquireUninterruptibly();
                    }
                }
                channel.put(i % 100 == 99 ? new Barrier(i) : record(i));
            }
        });
        java.util.concurrent.CompletableFuture<long[]> read = new java.util.concurrent.CompletableFuture<>();
        Thread reader = new Thread(() -> {
            long[] seen = new long[2]; // elements in order, out-of-order ones
            while (seen[0] < count) {
                Element e = channel.poll();
                if (e == null) {
                    Thread.onSpinWait();
                    continue;
                }
                long id = e instanceof Record r ? r.offset() : ((Barrier) e).checkpointId();
                if (id != seen[0]) {
                    seen[1]++;
                }
                seen[0]++;
            }
            read.complete(seen);
        });
        writer.setDaemon(true);
        reader.setDaemon(true);
        writer.start();
        reader.start();
        long[] seen = read.get(1, java.util.concurrent.TimeUnit.MINUTES);
        assertEquals(count, seen[0]);
        assertEquals(0, seen[1], "elements out of order");
        writer.join(java.time.Duration.ofMinutes(1).toMillis());
        assertTrue(channel.isEmpty());
        assertEquals(1, channel.remainingCapacity());
    }

    @Test
    void aChannelNeedsRoomForARecord() {
        assertThrows(IllegalArgumentException.class, () -> new Channel(0, "in-0", 0));
    }
}
