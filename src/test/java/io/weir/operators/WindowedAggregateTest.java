package io.weir.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.dataflow.Event;
import io.weir.dataflow.LateRecordException;
import io.weir.fixtures.OperatorHarness;
import io.weir.state.MemoryStateStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The windowed aggregate on its own: when results go out, what they hold, late records, state. */
class WindowedAggregateTest {
    private static final Aggregate.Spec SPEC = new Aggregate.Spec(
            "user", "count", Map.of("amount", "sum"), Map.of(), Map.of(), Map.of(), Map.of(), Map.of());

    private static OperatorHarness harness(Windows windows, long lateness, WindowedAggregate.Emit emit) {
        return new OperatorHarness(new WindowedAggregate(SPEC, windows, lateness, emit, "late-topic"));
    }

    private static Event record(OperatorHarness h, String user, long amount, long ts) throws Exception {
        return h.process(user, Map.of("amount", amount), ts);
    }

    @Test
    void onCloseSendsOneResultPerKeyAndWindowWhenTheWatermarkReachesItsEnd() throws Exception {
        OperatorHarness h = harness(Windows.tumbling(10_000), 0, WindowedAggregate.Emit.ON_CLOSE);
        record(h, "u1", 5, 1_000);
        record(h, "u1", 7, 9_999);
        record(h, "u2", 1, 4_000);
        record(h, "u1", 3, 12_000);
        assertEquals(List.of(), h.emitted, "nothing before a close");
        assertEquals(List.of(), h.advanceWatermark(9_999), "the watermark is still inside the window");
        List<Event> closed = h.advanceWatermark(10_000);
        assertEquals(2, closed.size());
        assertEquals(
                List.of("user", "windowStart", "windowEnd", "count", "sum"),
                List.copyOf(((Map<?, ?>) closed.get(0).value()).keySet()),
                "key, window, then the aggregates");
        assertEquals(
                Map.of("user", "u1", "windowStart", 0L, "windowEnd", 10_000L, "count", 2L, "sum", 12L),
                closed.get(0).value());
        assertEquals(9_999, closed.get(0).timestamp(), "a result carries its window's last millisecond");
        assertEquals(
                Map.of("user", "u2", "windowStart", 0L, "windowEnd", 10_000L, "count", 1L, "sum", 1L),
                closed.get(1).value());
        assertEquals(List.of(), h.advanceWatermark(19_999), "each window once");
        assertEquals(1, h.advanceWatermark(Long.MAX_VALUE).size());
    }

    @Test
    void everyUpdateSendsTheWindowAfterEachRecordAndNothingAtTheClose() throws Exception {
        OperatorHarness h = harness(Windows.tumbling(10_000), 0, WindowedAggregate.Emit.EVERY_UPDATE);
        assertEquals(1L, ((Map<?, ?>) record(h, "u1", 5, 1_000).value()).get("count"));
        assertEquals(12L, ((Map<?, ?>) record(h, "u1", 7, 2_000).value()).get("sum"));
        assertEquals(List.of(), h.advanceWatermark(10_000));
        assertEquals(0, windowsInState(h), "state is dropped at the close all the same");
    }

    @Test
    void aRecordForAClosedWindowIsLateButLatenessKeepsTheWindowOpen() throws Exception {
        OperatorHarness strict = harness(Windows.tumbling(10_000), 0, WindowedAggregate.Emit.ON_CLOSE);
        record(strict, "u1", 5, 1_000);
        strict.advanceWatermark(10_000);
        LateRecordException late = assertThrows(LateRecordException.class, () -> record(strict, "u1", 1, 2_000));
        assertEquals("late", late.getMessage());
        assertEquals("late-topic", late.topic());

        OperatorHarness lenient = harness(Windows.tumbling(10_000), 5_000, WindowedAggregate.Emit.ON_CLOSE);
        record(lenient, "u1", 5, 1_000);
        assertEquals(List.of(), lenient.advanceWatermark(14_999), "open until end + lateness");
        record(lenient, "u1", 1, 2_000);
        List<Event> closed = lenient.advanceWatermark(15_000);
        assertEquals(2L, ((Map<?, ?>) closed.get(0).value()).get("count"));
        assertThrows(LateRecordException.class, () -> record(lenient, "u1", 1, 2_000));
    }

    @Test
    void hoppingWindowsCountARecordInEachWindowHoldingIt() throws Exception {
        OperatorHarness h = harness(Windows.hopping(10_000, 5_000), 0, WindowedAggregate.Emit.ON_CLOSE);
        record(h, "u1", 1, 7_000); // [0, 10000) and [5000, 15000)
        record(h, "u1", 1, 12_000); // [5000, 15000) and [10000, 20000)
        List<Event> out = h.advanceWatermark(20_000);
        assertEquals(3, out.size());
        assertEquals(1L, ((Map<?, ?>) out.get(0).value()).get("count"));
        assertEquals(2L, ((Map<?, ?>) out.get(1).value()).get("count"));
        assertEquals(5_000L, ((Map<?, ?>) out.get(1).value()).get("windowStart"));
        assertEquals(1L, ((Map<?, ?>) out.get(2).value()).get("count"));
    }

    @Test
    void sessionsMergeWhenARecordBridgesThem() throws Exception {
        OperatorHarness h = harness(Windows.session(1_000), 0, WindowedAggregate.Emit.ON_CLOSE);
        record(h, "u1", 1, 0);
        record(h, "u1", 1, 1_500);
        assertEquals(2, windowsInState(h), "1.5 s apart with a gap of 1 s: two sessions");
        record(h, "u1", 1, 800);
        assertEquals(1, windowsInState(h), "a record 0.8 s after the first and 0.7 s before the second merges them");
        List<Event> out = h.advanceWatermark(2_501); // past the end: a record at 2,500 would still join
        assertEquals(
                Map.of("user", "u1", "windowStart", 0L, "windowEnd", 2_500L, "count", 3L, "sum", 3L),
                out.get(0).value());
        assertEquals(1, out.size());
    }

    @Test
    void recordsExactlyAGapApartAreOneSessionWhichClosesOnceTheWatermarkPassesItsEnd() throws Exception {
        OperatorHarness h = harness(Windows.session(1_000), 0, WindowedAggregate.Emit.ON_CLOSE);
        record(h, "u1", 1, 0);
        record(h, "u1", 1, 1_000);
        assertEquals(1, windowsInState(h), "1 s apart with a gap of 1 s: sessions that touch merge");
        assertEquals(List.of(), h.advanceWatermark(2_000), "a record at 2,000 would still join [0, 2000)");
        record(h, "u1", 1, 2_000);
        assertEquals(1, windowsInState(h), "the record at the session's end joined it");
        assertEquals(List.of(), h.advanceWatermark(3_000));
        List<Event> out = h.advanceWatermark(3_001);
        assertEquals(
                Map.of("user", "u1", "windowStart", 0L, "windowEnd", 3_000L, "count", 3L, "sum", 3L),
                out.get(0).value());
        assertEquals(2_999L, out.get(0).timestamp(), "the session's last millisecond");
        assertEquals(1, out.size());
    }

    @Test
    void aSessionWhoseTimerIsAtItsEndFromAnEarlierVersionStillClosesOnce() throws Exception {
        OperatorHarness h = harness(Windows.session(1_000), 0, WindowedAggregate.Emit.ON_CLOSE);
        record(h, "u1", 1, 0);
        // As a checkpoint of the version that closed sessions at their end holds it: the timer at
        // 1,000 instead of 1,001.
        h.state.setCurrentKey("u1".getBytes(StandardCharsets.UTF_8));
        h.context().timers().deleteEventTime(1_001);
        h.context().timers().registerEventTime(1_000);
        assertEquals(List.of(), h.advanceWatermark(1_000), "a record at 1,000 would still join");
        List<Event> out = h.advanceWatermark(1_001);
        assertEquals(1, out.size(), "closed by the timer the early one put in its place");
        assertEquals(1_000L, ((Map<?, ?>) out.get(0).value()).get("windowEnd"));
        assertEquals(List.of(), h.advanceWatermark(Long.MAX_VALUE), "and only once");
    }

    @Test
    void aRefusedRecordChangesNoWindow() throws Exception {
        OperatorHarness h = harness(Windows.hopping(10_000, 5_000), 0, WindowedAggregate.Emit.ON_CLOSE);
        record(h, "u1", Long.MAX_VALUE, 7_000);
        assertThrows(io.weir.dataflow.BadRecordException.class, () -> record(h, "u1", 1, 12_000));
        List<Event> out = h.advanceWatermark(20_000);
        assertEquals(2, out.size(), "the overflowing record opened no window");
        assertEquals(1L, ((Map<?, ?>) out.get(1).value()).get("count"));
    }

    @Test
    void stateHoldsOpenWindowsOnly() throws Exception {
        OperatorHarness h = harness(Windows.tumbling(1_000), 0, WindowedAggregate.Emit.ON_CLOSE);
        MemoryStateStore store = (MemoryStateStore) h.state.store();
        long peak = 0;
        for (int i = 0; i < 10_000; i++) {
            record(h, "u" + (i % 50), 1, i * 100L);
            h.advanceWatermark(i * 100L - 1_000);
            peak = Math.max(peak, store.approximateEntries());
        }
        assertTrue(peak < 500, "50 keys with at most 3 open windows each, and their timers; was " + peak);
        h.advanceWatermark(Long.MAX_VALUE);
        assertEquals(0, store.approximateEntries(), "every window closed: nothing left");
        assertEquals(10_000, h.emitted.size(), "one result per key and window: 1000 windows of 1 s, 10 keys each");
    }

    private static int windowsInState(OperatorHarness h) {
        h.state.setCurrentKey("u1".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return h.state
                .mapState(WindowedAggregate.STATE, io.weir.state.Serde.LONG, new Accumulators(3))
                .entries()
                .size();
    }
}
