package io.weir.dataflow;

import io.weir.element.Barrier;
import io.weir.element.Record;
import io.weir.element.Watermark;
import io.weir.fixtures.CapturingAcks;
import io.weir.fixtures.FakeClock;
import io.weir.fixtures.MemorySnapshotStore;
import io.weir.fixtures.RecordingEpochOutputs;
import io.weir.fixtures.TextCodec;
import io.weir.operators.Sink;
import io.weir.state.KeyedState;
import io.weir.state.MemoryStateStore;
import io.weir.state.RestorePoint;
import io.weir.state.SnapshotPart;
import io.weir.state.StateHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * One real {@link Task} over in-memory channels with fake outputs, acknowledgements and clock: the
 * test plays the source loop (records, barriers, watermarks into channels) and the worker
 * ({@link #run}).
 */
final class TaskRig {
    static final String SINK = "out";
    static final String DEAD_LETTERS = "dlq";

    final List<Channel> channels = new ArrayList<>();
    final RecordingEpochOutputs outputs = new RecordingEpochOutputs();
    final CapturingAcks acks = new CapturingAcks(outputs::nextSeq);
    final FakeClock clock = new FakeClock();
    final Counters counters = new Counters();
    final MemoryStateStore store = new MemoryStateStore("count-0");
    final KeyedState state = new KeyedState(store);
    final MemorySnapshotStore files = new MemorySnapshotStore();
    final Task task;
    final TaskEnvironment env;
    private final long[] offsets;
    private long nextBarrier;

    TaskRig(int channelCount, boolean align, long firstEpoch, List<Supplier<Operator>> operators) {
        this(channelCount, align, firstEpoch, operators, false);
    }

    /**
     * @param table the last channel reads topic {@code table}, a lookup's table (a side input whose
     *     records the first operator takes), as channel {@code table-0}
     */
    TaskRig(int channelCount, boolean align, long firstEpoch, List<Supplier<Operator>> operators, boolean table) {
        for (int c = 0; c < channelCount; c++) {
            channels.add(new Channel(c, (table && c == channelCount - 1 ? "table-" : "in-") + c, 1_000_000));
        }
        offsets = new long[channelCount];
        nextBarrier = firstEpoch;
        List<ChainedOperator> chain = new java.util.ArrayList<>();
        for (int i = 0; i < operators.size(); i++) {
            chain.add(new ChainedOperator("pipeline." + (i + 1) + ".op", operators.get(i)));
        }
        TextCodec text = new TextCodec();
        chain.add(new ChainedOperator("pipeline.sink", () -> new Sink(SINK, text, text, null)));
        Stage stage = table
                ? new Stage(
                        "count",
                        List.of("in"),
                        text,
                        text,
                        chain,
                        DEAD_LETTERS,
                        false,
                        Watermarks.STREAM_TIME,
                        List.of(new Stage.SideInput("table", text, text, null, null, 0, true)))
                : new Stage("count", List.of("in"), text, text, chain, DEAD_LETTERS, false);
        env = new TaskEnvironment(align, outputs, acks, clock, counters);
        task = new Task(stage, 0, channels, state, env, firstEpoch);
    }

    /** A record keyed and valued {@code c<channel>}. */
    void record(int channel, long timestamp) {
        record(channel, "c" + channel, "c" + channel, timestamp);
    }

    void record(int channel, String key, String value, long timestamp) {
        channels.get(channel).put(new Record(bytes(key), bytes(value), timestamp, offsets[channel]++));
    }

    /** Barrier n into every channel, as the source loop injects it; returns n. */
    long inject() {
        long id = nextBarrier++;
        for (Channel c : channels) {
            c.put(new Barrier(id));
        }
        return id;
    }

    void barrier(int channel, long id) {
        channels.get(channel).put(new Barrier(id));
    }

    void watermark(int channel, long timestamp) {
        channels.get(channel).put(new Watermark(timestamp));
    }

    int run(int budget) throws Exception {
        return task.run(budget);
    }

    /** Runs until no channel can deliver anything. */
    int drain() throws Exception {
        int total = 0;
        int done;
        do {
            done = task.run(1000);
            total += done;
        } while (done > 0);
        return total;
    }

    /** Writes a captured snapshot part and restores a new store from it. */
    KeyedState restore(SnapshotPart part) throws Exception {
        StateHandle handle = part.write(files, () -> false);
        return new KeyedState(MemoryStateStore.restore(new RestorePoint("count-0", 1, handle), "restored", files));
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
