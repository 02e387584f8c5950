package io.weir.dataflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.element.Barrier;
import io.weir.element.Record;
import io.weir.fixtures.CapturingAcks;
import io.weir.fixtures.FakeClock;
import io.weir.fixtures.RecordingEpochOutputs;
import io.weir.operators.Aggregate;
import io.weir.operators.Codecs;
import io.weir.operators.Sink;
import io.weir.operators.WindowedAggregate;
import io.weir.operators.Windows;
import io.weir.state.KeyedState;
import io.weir.state.MemoryStateStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A real task with a windowed aggregate: the watermark is part of its checkpoint, so a task made
 * anew over the state of a barrier (a restart) treats a record for a window closed before the
 * barrier as late instead of sending that window a second time; an idle partition stops holding
 * the windows back.
 */
class EventTimeTaskTest {
    private final RecordingEpochOutputs outputs = new RecordingEpochOutputs();
    private final CapturingAcks acks = new CapturingAcks(outputs::nextSeq);
    private final FakeClock clock = new FakeClock();

    private Task task(MemoryStateStore store, List<Channel> channels, long idleAfter, long firstEpoch) {
        Aggregate.Spec spec =
                new Aggregate.Spec("user", "count", Map.of(), Map.of(), Map.of(), Map.of(), Map.of(), Map.of());
        Stage stage = new Stage(
                "w",
                List.of("in"),
                Codecs.STRING,
                Codecs.JSON,
                List.of(
                        new ChainedOperator(
                                "pipeline.1.aggregate",
                                () -> new WindowedAggregate(
                                        spec, Windows.tumbling(1_000), 0, WindowedAggregate.Emit.ON_CLOSE, null)),
                        new ChainedOperator(
                                "pipeline.2.sink", () -> new Sink("out", Codecs.STRING, Codecs.JSON, null))),
                "dlq",
                true,
                new Watermarks(null, 100, idleAfter, false, null));
        TaskEnvironment env = new TaskEnvironment(true, outputs, acks, clock, new Counters());
        return new Task(stage, 0, channels, new KeyedState(store), env, firstEpoch);
    }

    /**
     * A first stage feeding a key-by: its watermark (the highest timestamp read less 100 ms) goes
     * into every partition of the repartition topic as a marker record.
     */
    private Task markingTask(Channel in) {
        Stage stage = new Stage(
                "w",
                List.of("in"),
                Codecs.STRING,
                Codecs.JSON,
                List.of(new ChainedOperator(
                        "pipeline.1.sink", () -> new Sink("w-repartition-1", Codecs.STRING, Codecs.JSON, null))),
                "dlq",
                true,
                new Watermarks(null, 100, 0, false, "w-repartition-1"));
        TaskEnvironment env = new TaskEnvironment(true, outputs, acks, clock, new Counters());
        return new Task(stage, 0, List.of(in), new KeyedState(new MemoryStateStore("w-0")), env, 1);
    }

    @Test
    void aSlowInputMovesTheWatermarkDownstreamEveryFewHundredMillisecondsNotAfterEveryRecord() throws Exception {
        Channel in = new Channel(0, "in-0", 1_000);
        Task task = markingTask(in);

        // One record every 10 ms for 2 s, the worker finding nothing between two: each moves the
        // watermark.
        for (int i = 0; i < 200; i++) {
            in.put(record(i, 1_000 + 10L * i));
            task.run(100);
            task.run(100);
            clock.advance(java.time.Duration.ofMillis(10));
        }

        List<String> marked = outputs.log().stream()
                .filter(e -> e.key() == null && e.header(Task.MARKER) != null)
                .map(e -> e.header(Task.MARKER))
                .toList();
        assertEquals(200, count("w-repartition-1") - marked.size(), "the records");
        assertTrue(marked.size() >= 5 && marked.size() <= 11, "markers every 200 ms of 2 s: " + marked);
        // None is lost: the next run that finds nothing once 200 ms passed writes the last watermark.
        clock.advance(java.time.Duration.ofMillis(200));
        task.run(100);
        List<String> after = outputs.log().stream()
                .filter(e -> e.key() == null && e.header(Task.MARKER) != null)
                .map(e -> e.header(Task.MARKER))
                .toList();
        assertEquals(Long.toString(1_000 + 10L * 199 - 100), after.get(after.size() - 1));
    }

    @Test
    void aBusyInputMovesTheWatermarkDownstreamEveryFewHundredMillisecondsNotOnlyAtBarriers() throws Exception {
        // Every run reads a record: the markers still go in band, so the next stage judges
        // lateness by a watermark at most ~200 ms old, not one a checkpoint interval old.
        Channel in = new Channel(0, "in-0", 1_000);
        Task task = markingTask(in);
        for (int i = 0; i < 200; i++) {
            in.put(record(i, 1_000 + 10L * i));
            task.run(100);
            clock.advance(java.time.Duration.ofMillis(10));
        }
        List<Long> marked = outputs.log().stream()
                .filter(e -> e.key() == null && e.header(Task.MARKER) != null)
                .map(e -> Long.parseLong(e.header(Task.MARKER)))
                .toList();
        assertTrue(marked.size() >= 5 && marked.size() <= 11, "markers every 200 ms of 2 s: " + marked);
        assertEquals(marked.stream().sorted().toList(), marked, "rising");
        assertTrue(marked.get(marked.size() - 1) >= 1_000 + 10L * 199 - 100 - 200, "recent: " + marked);
    }

    private static Record record(long offset, long ts) {
        return new Record("u1".getBytes(StandardCharsets.UTF_8), "{}".getBytes(StandardCharsets.UTF_8), ts, offset);
    }

    /** A task over {@code store} reads events at 500 and {@code then}, then takes checkpoint 1. */
    private void tookCheckpointOne(MemoryStateStore store, long then) throws Exception {
        Channel in = new Channel(0, "in-0", 1_000);
        Task first = task(store, List.of(in), 0, 1);
        in.put(record(0, 500));
        in.put(record(1, then));
        in.put(new Barrier(1));
        first.run(100);
    }

    private long count(String topic) {
        return outputs.log().stream().filter(e -> topic.equals(e.topic())).count();
    }

    @Test
    void aRestartedTaskKeepsItsWatermarkSoAClosedWindowIsNeverSentTwice() throws Exception {
        MemoryStateStore store = new MemoryStateStore("w-0");
        tookCheckpointOne(store, 1_200); // watermark 1100: window [0, 1000) closes
        assertEquals(1, count("out"));
        assertEquals(1, acks.ids().size(), "checkpoint 1 taken");

        // A restart from checkpoint 1: a new task over that state; a record of the closed window
        // replayed or arriving now is late.
        Channel again = new Channel(0, "in-0", 1_000);
        Task second = task(store, List.of(again), 0, 2);
        again.put(record(2, 900));
        second.run(100);
        assertEquals(1, count("out"), "window [0, 1000) is not sent again");
        assertEquals(1, count("dlq"));
        assertEquals(
                "late",
                outputs.log().stream()
                        .filter(e -> "dlq".equals(e.topic()))
                        .findFirst()
                        .orElseThrow()
                        .header("weir.error"));
    }

    @Test
    void aTaskARescaleMadeStartsAtItsWatermarkFloorSoAMovedKeysClosedWindowStaysClosed() throws Exception {
        MemoryStateStore store = new MemoryStateStore("w-2");
        Task.raiseWatermark(new KeyedState(store), 1_100); // its keys' old task had closed [0, 1000)
        assertEquals(1_100, Task.recordedWatermark(new KeyedState(store)));
        Channel in = new Channel(0, "in-2", 1_000);
        Task task = task(store, List.of(in), 0, 2);
        in.put(record(0, 900));
        in.put(record(1, 1_150)); // its own partition's watermark, 1050, is below the floor
        task.run(100);
        assertEquals(0, count("out"), "window [0, 1000) is not opened again");
        assertEquals(1, count("dlq"), "900 is late");
        in.put(record(2, 2_200)); // watermark 2100: [1000, 2000) closes
        task.run(100);
        assertEquals(1, count("out"));
    }

    @Test
    void aRaisedWatermarkNeverLowersTheTasksOwnAndMakesItsEarlierRecordsLate() throws Exception {
        MemoryStateStore store = new MemoryStateStore("w-0");
        tookCheckpointOne(store, 1_300); // watermark 1200
        assertEquals(1_200, Task.recordedWatermark(new KeyedState(store)));
        Task.raiseWatermark(new KeyedState(store), 1_000); // lower: no change
        assertEquals(1_200, Task.recordedWatermark(new KeyedState(store)));
        Task.raiseWatermark(new KeyedState(store), 3_100); // a task whose keys came from one further ahead

        Channel again = new Channel(0, "in-0", 1_000);
        Task second = task(store, List.of(again), 0, 2);
        again.put(record(2, 2_500)); // on time for its own partition (1200), late after the raise
        second.run(100);
        assertEquals(1, count("out"), "only [0, 1000), closed by the first task");
        assertEquals(1, count("dlq"), "2500 is late below the raised watermark");
    }

    @Test
    void anIdlePartitionStopsHoldingTheWatermarkAndRejoinsWithItsNextRecord() throws Exception {
        Channel busy = new Channel(0, "in-0", 1_000);
        Channel quiet = new Channel(1, "in-1", 1_000);
        Task task = task(new MemoryStateStore("w-0"), List.of(busy, quiet), 5_000, 1);
        busy.put(record(0, 500));
        busy.put(record(1, 2_000));
        task.run(100);
        assertEquals(0, count("out"), "the quiet partition holds the watermark at its start");
        clock.advance(java.time.Duration.ofMillis(5_000));
        busy.put(record(2, 3_000));
        task.run(100);
        assertEquals(1, count("out"), "idle after 5 s: window [0, 1000) closes at watermark 2900");
        quiet.put(record(0, 2_950));
        busy.put(record(3, 9_000));
        task.run(100);
        assertEquals(1, count("out"), "back, the quiet partition (at 2850) holds the watermark at 2900 again");
        assertEquals(0, count("dlq"), "2950 was not late: its window ends at 3000");
        quiet.put(record(1, 3_500));
        task.run(100);
        assertEquals(2, count("out"), "watermark 3400: [2000, 3000) closes, [3000, 4000) stays open");
    }
}
