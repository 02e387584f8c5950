package io.weir.dataflow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weir.element.Barrier;
import io.weir.element.Record;
import io.weir.fixtures.CapturingAcks;
import io.weir.fixtures.FakeClock;
import io.weir.fixtures.RecordingEpochOutputs;
import io.weir.fixtures.TextCodec;
import io.weir.operators.Sink;
import io.weir.state.KeyedState;
import io.weir.state.MemoryStateStore;
import io.weir.state.SnapshotPart;
import io.weir.state.StateStore;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A task asks its store to prepare the next snapshot once per checkpoint, a lead before it is due. */
class TaskPrepareSnapshotTest {

    /** The memory store, counting the preparations it is asked for. */
    static final class CountingStore implements StateStore {
        final MemoryStateStore inner = new MemoryStateStore("count-0");
        int prepared;

        @Override
        public byte[] get(byte[] key) {
            return inner.get(key);
        }

        @Override
        public void put(byte[] key, byte[] value) {
            inner.put(key, value);
        }

        @Override
        public void delete(byte[] key) {
            inner.delete(key);
        }

        @Override
        public Iterator<Map.Entry<byte[], byte[]>> scan(byte[] prefix) {
            return inner.scan(prefix);
        }

        @Override
        public SnapshotPart snapshot(long checkpointId) {
            return inner.snapshot(checkpointId);
        }

        @Override
        public void prepareSnapshot() {
            prepared++;
        }

        @Override
        public long approximateEntries() {
            return inner.approximateEntries();
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    @Test
    void theStoreIsPreparedOnceAnEighthOfTheIntervalBeforeEachBarrierIsDue() throws Exception {
        long interval = 1_000;
        assertEquals(875, TaskEnvironment.prepareSnapshotAfter(interval));
        assertEquals(59_000, TaskEnvironment.prepareSnapshotAfter(60_000), "the lead is at most 1 s");

        FakeClock clock = new FakeClock();
        RecordingEpochOutputs outputs = new RecordingEpochOutputs();
        CountingStore store = new CountingStore();
        Channel in = new Channel(0, "in-0", 1_000);
        TextCodec text = new TextCodec();
        Stage stage = new Stage(
                "count",
                List.of("in"),
                text,
                text,
                List.of(new ChainedOperator("pipeline.sink", () -> new Sink("out", text, text, null))),
                "dlq",
                false);
        TaskEnvironment env = new TaskEnvironment(
                true,
                outputs,
                new CapturingAcks(outputs::nextSeq),
                clock,
                new Counters(),
                RecordLimits.defaults(),
                TaskEnvironment.prepareSnapshotAfter(interval));
        Task task = new Task(stage, 0, List.of(in), new KeyedState(store), env, 1);

        byte[] k = "k".getBytes(StandardCharsets.UTF_8);
        in.put(new Record(k, k, 0, 0));
        task.run(100);
        clock.advance(java.time.Duration.ofMillis(874));
        task.run(100);
        assertEquals(0, store.prepared, "not yet: the barrier is 126 ms away");
        clock.advance(java.time.Duration.ofMillis(1));
        task.run(100);
        task.run(100);
        assertEquals(1, store.prepared, "once per checkpoint");

        clock.advance(java.time.Duration.ofMillis(100)); // the barrier comes later than due
        in.put(new Barrier(1));
        task.run(100);
        clock.advance(java.time.Duration.ofMillis(870));
        task.run(100);
        assertEquals(1, store.prepared, "the next preparation counts from the barrier");
        clock.advance(java.time.Duration.ofMillis(5));
        task.run(100);
        assertEquals(2, store.prepared);
    }
}
