package io.weir.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cel.common.values.NullValue;
import io.weir.api.ListState;
import io.weir.api.MapState;
import io.weir.api.Output;
import io.weir.api.Processor;
import io.weir.api.ProcessorContext;
import io.weir.api.Record;
import io.weir.api.ValueState;
import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Event;
import io.weir.dataflow.OperatorOpenException;
import io.weir.dataflow.RecordKey;
import io.weir.element.Header;
import io.weir.fixtures.OperatorHarness;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcessOperatorTest {
    private static final String STEP = "pipeline.2.process";

    /** A processor's state value: a record, stored as JSON. */
    public record Tally(long count, double total) {}

    /** Counts and sums amounts per key in a value state, and lists the ids in a list state. */
    public static final class Counter implements Processor {
        private ValueState<Tally> tally;
        private ListState<String> ids;
        private MapState<String, Long> perCurrency;

        @Override
        public void open(ProcessorContext context) {
            tally = context.valueState("tally", Tally.class);
            ids = context.listState("ids", String.class);
            perCurrency = context.mapState("per-currency", String.class, Long.class);
        }

        @Override
        public void process(Record record, Output out) {
            Map<String, Object> order = record.valueAsMap();
            Tally before = tally.value();
            Tally now = before == null
                    ? new Tally(1, ((Number) order.get("amount")).doubleValue())
                    : new Tally(before.count() + 1, before.total() + ((Number) order.get("amount")).doubleValue());
            tally.update(now);
            ids.add((String) order.get("id"));
            String currency = (String) order.get("currency");
            Long seen = perCurrency.get(currency);
            perCurrency.put(currency, seen == null ? 1 : seen + 1);
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("key", record.key());
            result.put("count", now.count());
            result.put("total", now.total());
            result.put("ids", ids.get());
            result.put("currencies", perCurrency.entries());
            out.emit(result);
        }
    }

    private static OperatorHarness harness(Processor processor, Map<String, ?> with) {
        return new OperatorHarness(new ProcessOperator(STEP, processor, with));
    }

    private static Object json(String text) {
        return Codecs.JSON.decode(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void stateSurvivesFromRecordToRecordAndIsKeptPerKey() throws Exception {
        OperatorHarness harness = harness(new Counter(), null);

        harness.json("alice", "{\"id\":\"a1\",\"amount\":10,\"currency\":\"EUR\"}");
        harness.json("bob", "{\"id\":\"b1\",\"amount\":1,\"currency\":\"EUR\"}");
        Event out = harness.json("alice", "{\"id\":\"a2\",\"amount\":2.5,\"currency\":\"USD\"}");

        assertEquals(
                json("{\"key\":\"alice\",\"count\":2,\"total\":12.5,\"ids\":[\"a1\",\"a2\"],"
                        + "\"currencies\":{\"EUR\":1,\"USD\":1}}"),
                out.value());
        assertEquals(
                json("{\"key\":\"bob\",\"count\":1,\"total\":1.0,\"ids\":[\"b1\"],\"currencies\":{\"EUR\":1}}"),
                harness.emitted.get(1).value());
    }

    @Test
    void twoProcessStepsUsingTheSameStateNameKeepTheirStateApart() throws Exception {
        OperatorHarness first = harness(new Counter(), null);
        ProcessOperator second = new ProcessOperator("pipeline.3.process", new Counter(), null);
        second.open(first.context());

        first.json("alice", "{\"id\":\"a1\",\"amount\":10,\"currency\":\"EUR\"}");
        List<Event> fromSecond = new ArrayList<>();
        second.process(
                first.emitted.get(0).withValue(json("{\"id\":\"x\",\"amount\":1,\"currency\":\"EUR\"}")),
                fromSecond::add);

        assertEquals(1L, ((Map<?, ?>) fromSecond.get(0).value()).get("count"));
        assertEquals(
                1L,
                ((Map<?, ?>) first.json("bob", "{\"id\":\"b\",\"amount\":1,\"currency\":\"EUR\"}")
                                .value())
                        .get("count"));
        assertEquals(
                2L,
                ((Map<?, ?>) first.json("alice", "{\"id\":\"a2\",\"amount\":1,\"currency\":\"EUR\"}")
                                .value())
                        .get("count"));
    }

    @Test
    void emittedValuesAreNormalisedIntoTheValueModel() throws Exception {
        List<Object> values = new ArrayList<>();
        values.add(7);
        values.add(1.5f);
        values.add(null);
        values.add((short) 3);
        OperatorHarness harness = harness(
                (record, out) -> {
                    Map<String, Object> doc = new LinkedHashMap<>();
                    doc.put("int", 1);
                    doc.put("float", 0.5f);
                    doc.put("nothing", null);
                    doc.put("list", values);
                    doc.put("tree", new ObjectMapper().readTree("{\"a\":[1,2.5,null,true,\"x\"]}"));
                    out.emit(doc);
                    out.emit(null, 42);
                    out.emit(new byte[] {1, 2});
                },
                null);

        harness.json("k", "{}");

        assertEquals(
                json("{\"int\":1,\"float\":0.5,\"nothing\":null,\"list\":[7,1.5,null,3],"
                        + "\"tree\":{\"a\":[1,2.5,null,true,\"x\"]}}"),
                harness.emitted.get(0).value());
        assertSame(NullValue.NULL_VALUE, harness.emitted.get(1).value());
        assertEquals(42, harness.emitted.get(1).timestamp());
        assertArrayEquals(new byte[] {1, 2}, (byte[]) harness.emitted.get(2).value());
        assertEquals("k", harness.emitted.get(2).key().value(), "the key stays the record's");
    }

    @Test
    void theRecordShowsPlainJavaValuesHeadersAndWhereItWasRead() throws Exception {
        List<Record> seen = new ArrayList<>();
        ProcessOperator operator = new ProcessOperator(STEP, (record, out) -> seen.add(record), null);
        OperatorHarness harness = new OperatorHarness(operator);
        harness.state.setCurrentKey("k".getBytes(StandardCharsets.UTF_8));
        List<Header> headers = List.of(
                new Header("trace", "t1".getBytes(StandardCharsets.UTF_8)),
                new Header("trace", "t2".getBytes(StandardCharsets.UTF_8)));
        Event event = new Event(
                RecordKey.ofBytes("k".getBytes(StandardCharsets.UTF_8), Codecs.STRING),
                json("{\"a\":null,\"b\":[1,null],\"c\":{\"d\":2.0}}"),
                1234,
                headers);

        operator.process(event, harness.emitted::add);

        Record r = seen.get(0);
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("a", null);
        expected.put("b", Arrays.asList(1L, null));
        expected.put("c", Map.of("d", 2.0));
        assertEquals(expected, r.value());
        assertEquals(expected, r.valueAsMap());
        assertEquals(
                "{\"a\":null,\"b\":[1,null],\"c\":{\"d\":2.0}}", r.valueAsJson().toString());
        assertEquals("k", r.key());
        assertEquals(Map.of("trace", "t2"), r.headers());
        assertEquals(1234, r.timestamp());
        assertEquals("in", r.topic());
        assertEquals(0, r.partition());
        assertEquals(0, r.offset());
    }

    @Test
    void valueAsMapOfAValueThatIsNoObjectNamesWhatItIs() throws Exception {
        OperatorHarness harness = harness((record, out) -> record.valueAsMap(), null);

        BadRecordException e = assertThrows(BadRecordException.class, () -> harness.json("k", "[1]"));

        assertTrue(
                e.getMessage().contains("the record's value is a java.util.ArrayList, expected a JSON object"),
                e.getMessage());
    }

    @Test
    void anExceptionOfTheProcessorBecomesABadRecordAndEarlierStateChangesStay() throws Exception {
        Processor failing = new Processor() {
            private ValueState<Long> seen;

            @Override
            public void open(ProcessorContext context) {
                seen = context.valueState("seen", Long.class);
            }

            @Override
            public void process(Record record, Output out) {
                Long before = seen.value();
                seen.update(before == null ? 1 : before + 1);
                if (record.valueAsMap().containsKey("boom")) {
                    throw new IllegalStateException("boom at " + before);
                }
                out.emit(seen.value());
            }
        };
        OperatorHarness harness = harness(failing, null);
        harness.json("k", "{}");

        BadRecordException e = assertThrows(BadRecordException.class, () -> harness.json("k", "{\"boom\":1}"));

        assertEquals(
                "custom operator " + failing.getClass().getName()
                        + " failed: java.lang.IllegalStateException: boom at 1",
                e.getMessage());
        assertTrue(e.getCause() instanceof IllegalStateException);
        assertEquals(3L, harness.json("k", "{}").value(), "the failed record's update stayed");
    }

    @Test
    void aCallThatThrowsEmitsNothingOfWhatItEmittedBeforeTheThrow() throws Exception {
        Processor partial = new Processor() {
            @Override
            public void process(Record record, Output out) {
                out.emit("first");
                if (record.valueAsMap().containsKey("boom")) {
                    throw new IllegalStateException("boom after an emit");
                }
                out.emit("second");
            }

            @Override
            public void onTimer(io.weir.api.TimerEvent timer, Output out) {
                out.emit("from the timer");
                throw new IllegalStateException("boom on a timer");
            }
        };
        Processor processor = new Processor() {
            private ProcessorContext context;

            @Override
            public void open(ProcessorContext context) {
                this.context = context;
            }

            @Override
            public void process(Record record, Output out) throws Exception {
                context.timers().registerEventTime(100);
                partial.process(record, out);
            }

            @Override
            public void onTimer(io.weir.api.TimerEvent timer, Output out) throws Exception {
                partial.onTimer(timer, out);
            }
        };
        OperatorHarness harness = harness(processor, null);
        harness.json("k", "{}");
        assertEquals(
                List.of("first", "second"),
                harness.emitted.stream().map(Event::value).toList());

        assertThrows(BadRecordException.class, () -> harness.json("k", "{\"boom\":1}"));
        assertThrows(BadRecordException.class, () -> harness.advanceWatermark(100));

        // The failed record went to the dead letters alone; the timer's output is lost.
        assertEquals(
                List.of("first", "second"),
                harness.emitted.stream().map(Event::value).toList());
        harness.json("k", "{}");
        assertEquals(4, harness.emitted.size(), "the next call emits as before");
    }

    @Test
    void aTimestampBefore1970IsTheProcessorsFailureButARecordsOwnGoesOnAsItCame() throws Exception {
        OperatorHarness harness = harness((record, out) -> out.emit("x", -5), null);

        BadRecordException e = assertThrows(BadRecordException.class, () -> harness.json("k", "{}"));

        assertTrue(e.getMessage().contains("cannot emit a record at timestamp -5"), e.getMessage());
        assertEquals(List.of(), harness.emitted);
        // A Kafka record without a timestamp (-1) emitted with its own time goes on as the rest of
        // the pipeline passes it.
        OperatorHarness passThrough = harness((record, out) -> out.emit(record.value()), null);
        assertEquals(-1, passThrough.process("k", "v", -1).timestamp());
    }

    @Test
    void aClassMissingWhenTheProcessorOpensIsAnOpenFailure() {
        Processor missing = new Processor() {
            @Override
            public void open(ProcessorContext context) {
                throw new NoClassDefFoundError("com/acme/Gone");
            }

            @Override
            public void process(Record record, Output out) {}
        };

        OperatorOpenException e = assertThrows(OperatorOpenException.class, () -> harness(missing, null));

        assertTrue(e.getMessage().contains("failed to open"), e.getMessage());
        assertTrue(e.getCause() instanceof NoClassDefFoundError, String.valueOf(e.getCause()));
    }

    @Test
    void whatTheRestOfTheChainThrowsReachesTheTaskAsItIsOutOfTheProcessorsReach() {
        // Emitted records go on after the processor returned, so even one that catches everything
        // never sees (or swallows) what a later step throws.
        RuntimeException downstream = new IllegalStateException("the sink failed");
        ProcessOperator operator = new ProcessOperator(
                STEP,
                (record, out) -> {
                    try {
                        out.emit("x");
                    } catch (RuntimeException ignored) {
                        // a processor that swallows everything
                    }
                },
                null);
        OperatorHarness harness = new OperatorHarness(operator);
        Event event = new Event("k".getBytes(StandardCharsets.UTF_8), "v", 1);

        RuntimeException e = assertThrows(
                RuntimeException.class,
                () -> operator.process(event, ev -> {
                    throw downstream;
                }));

        assertSame(downstream, e, harness.emitted.toString());
    }

    @Test
    void aValueThatCannotBeEmittedIsTheProcessorsFailure() {
        OperatorHarness harness = harness((record, out) -> out.emit(new Object()), null);

        BadRecordException e = assertThrows(BadRecordException.class, () -> harness.json("k", "{}"));

        assertTrue(
                e.getMessage().contains("cannot emit a java.lang.Object: expected a Map, List, String, Number,"),
                e.getMessage());
    }

    @Test
    void aStateNameGivenToTwoKindsOfStateIsRefused() {
        Processor twice = new Processor() {
            @Override
            public void open(ProcessorContext context) {
                context.valueState("x", Long.class);
                context.listState("x", Long.class);
            }

            @Override
            public void process(Record record, Output out) {}
        };

        OperatorOpenException e = assertThrows(OperatorOpenException.class, () -> harness(twice, null));

        assertTrue(
                e.getMessage()
                        .startsWith(STEP + ": custom operator "
                                + twice.getClass().getName() + " failed to open in task harness-0"),
                e.getMessage());
        assertTrue(
                e.getMessage()
                        .contains(
                                "state 'x' is already a value state of java.lang.Long, cannot also be a list state of java.lang.Long"),
                e.getMessage());
    }

    @Test
    void settingsComeFromTheStepsWithMapping() throws Exception {
        OperatorHarness harness = harness(
                new Processor() {
                    private long limit;

                    @Override
                    public void open(ProcessorContext context) {
                        limit = context.settings().getLong("limit", 5);
                    }

                    @Override
                    public void process(Record record, Output out) {
                        out.emit(limit);
                    }
                },
                Map.of("limit", "12"));

        assertEquals(12L, harness.json("k", "{}").value());
    }

    @Test
    void nullJsonValuesAndAMissingKeyAreJavaNulls() throws Exception {
        List<Object> seen = new ArrayList<>();
        OperatorHarness harness = harness(
                (record, out) -> {
                    seen.add(record.key());
                    seen.add(record.value());
                },
                null);

        harness.json(null, "null");

        assertNull(seen.get(0));
        assertNull(seen.get(1));
    }
}
