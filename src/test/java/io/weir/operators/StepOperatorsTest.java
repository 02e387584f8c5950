package io.weir.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Event;
import io.weir.fixtures.OperatorHarness;
import io.weir.state.MapState;
import io.weir.state.Timer;
import io.weir.state.TimerDomain;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The built-in steps other than aggregate, each run alone with plain functions for expressions. */
class StepOperatorsTest {

    private static Object field(Event e, String name) {
        return ((Map<?, ?>) e.value()).get(name);
    }

    private static String json(Object value) {
        return new String(Json.encode(value), StandardCharsets.UTF_8);
    }

    @Test
    void aFilterKeepsTheRecordsItsConditionHoldsFor() throws Exception {
        OperatorHarness h = new OperatorHarness(new Filter((e, c) -> (Long) field(e, "amount") > 10));
        h.json("k", "{\"amount\":5}");
        h.json("k", "{\"amount\":50}");
        assertEquals(1, h.emitted.size());
        assertEquals(50L, field(h.emitted.get(0), "amount"));
    }

    @Test
    void aFilterThatGivesNoBoolRefusesTheRecord() throws Exception {
        OperatorHarness h = new OperatorHarness(new Filter((e, c) -> 1L));
        BadRecordException e = assertThrows(BadRecordException.class, () -> h.json("k", "{}"));
        assertTrue(e.getMessage().contains("must give a bool"), e.getMessage());
    }

    @Test
    void mapSetsFieldsFromTheRecordAsItArrivedThenDropsFields() throws Exception {
        Map<String, RecordFunction> set = new LinkedHashMap<>();
        set.put("double", (e, c) -> (Long) field(e, "amount") * 2);
        set.put("amount", (e, c) -> 0L);
        set.put("seen", (e, c) -> field(e, "amount"));
        OperatorHarness h = new OperatorHarness(MapValue.editing(set, List.of("user")));
        Event out = h.json("k", "{\"user\":\"u1\",\"amount\":21}");
        assertEquals("{\"amount\":0,\"double\":42,\"seen\":21}", json(out.value()));
    }

    @Test
    void mapWithAValueReplacesIt() throws Exception {
        OperatorHarness h = new OperatorHarness(MapValue.replacing((e, c) -> "u:" + field(e, "user")));
        assertEquals("u:a", h.json("k", "{\"user\":\"a\"}").value());
    }

    @Test
    void mapOnAValueThatIsNoObjectIsABadRecord() {
        OperatorHarness h = new OperatorHarness(MapValue.editing(Map.of("x", (e, c) -> 1L), List.of()));
        assertThrows(BadRecordException.class, () -> h.json("k", "[1]"));
    }

    @Test
    void aRouteSendsEachRecordToTheFirstMatchingCaseElseTheDefault() throws Exception {
        Route route = new Route(
                List.of(
                        new Route.Case(
                                (e, c) -> (Long) field(e, "amount") > 100,
                                new Sink("big", Codecs.STRING, Codecs.JSON, null)),
                        new Route.Case(
                                (e, c) -> (Long) field(e, "amount") > 10,
                                new Sink("medium", Codecs.STRING, Codecs.JSON, null))),
                new Sink("small", Codecs.STRING, Codecs.JSON, (e, c) -> "fixed"));
        OperatorHarness h = new OperatorHarness(route);
        h.json("a", "{\"amount\":500}");
        h.json("b", "{\"amount\":50}");
        h.json("c", "{\"amount\":5}");
        assertEquals(
                List.of("big", "medium", "small"),
                h.sent.stream().map(OperatorHarness.Sent::topic).toList());
        assertEquals("a", h.sent.get(0).keyText());
        assertEquals("fixed", h.sent.get(2).keyText());
    }

    @Test
    void aRouteWithoutDefaultDropsUnmatchedRecords() throws Exception {
        OperatorHarness h = new OperatorHarness(new Route(
                List.of(new Route.Case((e, c) -> false, new Sink("x", Codecs.STRING, Codecs.JSON, null))), null));
        h.json("a", "{}");
        assertTrue(h.sent.isEmpty());
    }

    @Test
    void keyByWritesTheNewKeyAsJsonToTheRepartitionTopicKeepingTimestamp() throws Exception {
        OperatorHarness h =
                new OperatorHarness(new Repartition((e, c) -> field(e, "bucket"), "app-repartition-1", Codecs.JSON));
        h.process("u1", Json.decode("{\"bucket\":7}".getBytes(StandardCharsets.UTF_8)), 1234);
        OperatorHarness.Sent sent = h.sent.get(0);
        assertEquals("app-repartition-1", sent.topic());
        assertEquals("7", sent.keyText());
        assertEquals(1234, sent.timestamp());
        assertEquals("{\"bucket\":7}", sent.valueText());
    }

    @Test
    void dedupeDropsAnIdSeenWithinTheDurationAndForgetsItOnceItsTimerFires() throws Exception {
        OperatorHarness h = new OperatorHarness(new Dedupe((e, c) -> field(e, "id"), 1000));
        assertEquals(1, emitted(h, "k", "{\"id\":1}", 0));
        assertEquals(0, emitted(h, "k", "{\"id\":1}", 999));
        assertEquals(1, emitted(h, "k", "{\"id\":2}", 500));
        assertEquals(1, emitted(h, "other", "{\"id\":1}", 10)); // ids are per key
        // At most within apart is a duplicate, as for a join's within.
        assertEquals(0, emitted(h, "k", "{\"id\":1}", 1000), "exactly within after the first");
        assertEquals(1, emitted(h, "k", "{\"id\":1}", 1001)); // more than within after the first
        List<Timer> due = h.state.takeDueTimers(TimerDomain.EVENT_TIME, Long.MAX_VALUE);
        assertEquals(4, due.size());
        Dedupe fresh = new Dedupe((e, c) -> field(e, "id"), 1000);
        OperatorHarness h2 = new OperatorHarness(fresh);
        emitted(h2, "k", "{\"id\":1}", 0);
        assertTrue(
                h2.state.takeDueTimers(TimerDomain.EVENT_TIME, 1000).isEmpty(),
                "remembered while event time is at its time + within");
        assertEquals(0, emitted(h2, "k", "{\"id\":1}", 0), "the same record again, its timer not due at 1000");
        for (Timer t : h2.state.takeDueTimers(TimerDomain.EVENT_TIME, 1001)) {
            h2.state.setCurrentKey(t.key());
            fresh.onTimer(t, h2.emitted::add);
        }
        h2.state.setCurrentKey("k".getBytes(StandardCharsets.UTF_8));
        assertTrue(h2.state
                .mapState("dedupe", io.weir.state.Serde.STRING, io.weir.state.Serde.LONG)
                .entries()
                .isEmpty());
        assertEquals(1, emitted(h2, "k", "{\"id\":1}", 600), "expired ids are forgotten");
    }

    @Test
    void dedupeStillDropsADuplicateOfTheLaterRecordAfterAnOutOfOrderOneOfTheSameIdPassed() throws Exception {
        OperatorHarness h = new OperatorHarness(new Dedupe((e, c) -> field(e, "id"), 60_000));
        assertEquals(1, emitted(h, "u1", "{\"id\":7}", 100_000));
        assertEquals(1, emitted(h, "u1", "{\"id\":7}", 30_000)); // 70 s before it: no duplicate
        assertEquals(0, emitted(h, "u1", "{\"id\":7}", 100_500), "a duplicate of the first, 500 ms after it");
        assertEquals(0, emitted(h, "u1", "{\"id\":7}", 30_500), "a duplicate of the second, 500 ms after it");
        assertEquals(1, emitted(h, "u1", "{\"id\":7}", 170_000), "more than 60 s from both");
    }

    @Test
    void dedupeReadsTheTimeAnEarlierVersionKeptForAnId() throws Exception {
        Dedupe dedupe = new Dedupe((e, c) -> field(e, "id"), 1000);
        OperatorHarness h = new OperatorHarness(dedupe);
        h.state.setCurrentKey("k".getBytes(StandardCharsets.UTF_8));
        h.state
                .mapState("dedupe", io.weir.state.Serde.BYTES, io.weir.state.Serde.LONG)
                .put(Codecs.JSON.encode(1L), 5_000L); // one long per id, as the earlier version wrote
        assertEquals(0, emitted(h, "k", "{\"id\":1}", 5_500));
        assertEquals(1, emitted(h, "k", "{\"id\":1}", 6_001));
    }

    @Test
    void dedupeForgetsATimeWhoseTimerAnEarlierVersionSetAtTimePlusWithinOnceEventTimePassesIt() throws Exception {
        Dedupe dedupe = new Dedupe((e, c) -> field(e, "id"), 1000);
        OperatorHarness h = new OperatorHarness(dedupe);
        h.state.setCurrentKey("k".getBytes(StandardCharsets.UTF_8));
        MapState<byte[], Long> seen = h.state.mapState("dedupe", io.weir.state.Serde.BYTES, io.weir.state.Serde.LONG);
        seen.put(Codecs.JSON.encode(1L), 5_000L);
        h.context().timers().registerEventTime(6_000); // where the earlier version set its timer
        h.advanceWatermark(6_000);
        h.state.setCurrentKey("k".getBytes(StandardCharsets.UTF_8));
        assertEquals(1, seen.entries().size(), "kept while event time is at 5,000 + within");
        h.advanceWatermark(6_001);
        h.state.setCurrentKey("k".getBytes(StandardCharsets.UTF_8));
        assertTrue(seen.entries().isEmpty(), "forgotten by the timer the first one set again");
    }

    private static int emitted(OperatorHarness h, String key, String json, long ts) throws Exception {
        return h.process(key, Json.decode(json.getBytes(StandardCharsets.UTF_8)), ts) == null ? 0 : 1;
    }

    @Test
    void jsonDecodingIsStrict() {
        assertThrows(BadRecordException.class, () -> Json.decode("{\"a\":1} garbage".getBytes(StandardCharsets.UTF_8)));
        BadRecordException dup = assertThrows(
                BadRecordException.class, () -> Json.decode("{\"a\":1,\"a\":2}".getBytes(StandardCharsets.UTF_8)));
        assertTrue(dup.getMessage().contains("Duplicate field 'a' at offset 7"), dup.getMessage());
        BadRecordException nested = assertThrows(
                BadRecordException.class,
                () -> Json.decode("{\"o\":{\"a\":1,\"a\":null}}".getBytes(StandardCharsets.UTF_8)));
        assertTrue(nested.getMessage().contains("Duplicate field 'a' at offset 12"), nested.getMessage());
        assertEquals(
                Map.of("o", Map.of("a", 1L), "a", 2L),
                Json.decode("{\"o\":{\"a\":1},\"a\":2}".getBytes(StandardCharsets.UTF_8)),
                "the same name in another object is no repeat");
        assertThrows(
                BadRecordException.class,
                () -> Json.decode("{\"a\":123456789012345678901234567890}".getBytes(StandardCharsets.UTF_8)));
        assertThrows(BadRecordException.class, () -> Json.decode(null));
        assertEquals(dev.cel.common.values.NullValue.NULL_VALUE, Json.decode("null".getBytes(StandardCharsets.UTF_8)));
        assertEquals(1.5, ((Map<?, ?>) Json.decode("{\"a\":1.5e0}".getBytes(StandardCharsets.UTF_8))).get("a"));
        assertEquals(7L, ((Map<?, ?>) Json.decode("{\"a\":7}".getBytes(StandardCharsets.UTF_8))).get("a"));
        assertNull(((Map<?, ?>) Json.decode("{}".getBytes(StandardCharsets.UTF_8))).get("a"));
    }

    @Test
    void aJoinKeepsHeadersApartFromItsBufferedRowsWhichStayAsEveryVersionWroteThem() {
        byte[] json = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
        byte[] row = new byte[json.length + 1];
        row[0] = 1; // matched, as every version writes it
        System.arraycopy(json, 0, row, 1, json.length);
        assertEquals(Map.of("a", 1L), Join.valueOf(row));

        List<io.weir.element.Header> headers = List.of(
                new io.weir.element.Header("trace", "t1".getBytes(StandardCharsets.UTF_8)),
                new io.weir.element.Header("empty", null));
        List<io.weir.element.Header> read = Join.decodeHeaders(Join.encodeHeaders(headers));
        assertEquals(2, read.size());
        assertEquals("trace", read.get(0).key());
        assertEquals("t1", new String(read.get(0).value(), StandardCharsets.UTF_8));
        assertEquals("empty", read.get(1).key());
        assertNull(read.get(1).value());
    }
}
