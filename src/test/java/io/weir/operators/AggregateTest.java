package io.weir.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Event;
import io.weir.dataflow.OperatorContext;
import io.weir.state.KeyedState;
import io.weir.state.MemoryStateStore;
import io.weir.state.Timers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AggregateTest {
    private final KeyedState state = new KeyedState(new MemoryStateStore("t"));
    private final List<JsonNode> out = new ArrayList<>();

    private Aggregate aggregate(Aggregate.Spec spec) {
        Aggregate a = new Aggregate(spec);
        a.open(new OperatorContext() {
            @Override
            public KeyedState state() {
                return state;
            }

            @Override
            public Timers timers() {
                return state.timers("0");
            }

            @Override
            public String taskName() {
                return "t";
            }

            @Override
            public long currentProcessingTime() {
                return 0;
            }
        });
        return a;
    }

    private static Aggregate.Spec runningTotals() {
        return new Aggregate.Spec(
                "user", "count", Map.of("amount", "sum"), Map.of(), Map.of(), Map.of(), Map.of("seq", "lastSeq"));
    }

    private JsonNode send(Aggregate a, String key, String json) throws Exception {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        state.setCurrentKey(k);
        a.process(
                new Event(k, Codecs.named("json").decode(json.getBytes(StandardCharsets.UTF_8)), 0),
                e -> out.add((JsonNode) e.value()));
        return out.get(out.size() - 1);
    }

    @Test
    void runningTotalsCountSumAndKeepTheLastSequencePerKey() throws Exception {
        Aggregate a = aggregate(runningTotals());
        send(a, "u1", "{\"user\":\"u1\",\"amount\":37,\"seq\":1}");
        send(a, "u2", "{\"user\":\"u2\",\"amount\":5,\"seq\":1}");
        JsonNode total = send(a, "u1", "{\"user\":\"u1\",\"amount\":3,\"seq\":2}");
        assertEquals("{\"user\":\"u1\",\"count\":2,\"sum\":40,\"lastSeq\":2}", total.toString());
    }

    @Test
    void aBadRecordChangesNoStateAndIsReportedForTheDeadLetterTopic() throws Exception {
        Aggregate a = aggregate(runningTotals());
        send(a, "u1", "{\"amount\":10,\"seq\":1}");
        BadRecordException missing = assertThrows(BadRecordException.class, () -> send(a, "u1", "{\"seq\":2}"));
        assertTrue(missing.getMessage().contains("'amount' is missing"), missing.getMessage());
        assertThrows(BadRecordException.class, () -> send(a, "u1", "{\"amount\":\"ten\",\"seq\":2}"));
        assertThrows(BadRecordException.class, () -> send(a, "u1", "[1,2]"));
        JsonNode total = send(a, "u1", "{\"amount\":1,\"seq\":3}");
        assertEquals(2, total.get("count").asLong());
        assertEquals(11, total.get("sum").asLong());
    }

    @Test
    void sumsStayIntegralUntilAFractionArrivesAndSurviveOverflow() throws Exception {
        Aggregate a = aggregate(runningTotals());
        assertTrue(send(a, "k", "{\"amount\":" + Long.MAX_VALUE + ",\"seq\":1}")
                .get("sum")
                .isIntegralNumber());
        JsonNode overflowed = send(a, "k", "{\"amount\":1,\"seq\":2}");
        assertTrue(overflowed.get("sum").isDouble());
        Aggregate b = aggregate(
                new Aggregate.Spec("key", null, Map.of("amount", "sum"), Map.of(), Map.of(), Map.of(), Map.of()));
        send(b, "x", "{\"amount\":2}");
        assertEquals(4.5, send(b, "x", "{\"amount\":2.5}").get("sum").asDouble());
    }

    @Test
    void minMaxAndAverageFollowEveryUpdateWithoutLeakingTheirHelpers() throws Exception {
        Map<String, String> min = new LinkedHashMap<>(Map.of("v", "lo"));
        Aggregate a = aggregate(new Aggregate.Spec(
                "key", "n", Map.of(), min, Map.of("v", "hi"), Map.of("v", "mean"), Map.of("tag", "tag")));
        send(a, "k", "{\"v\":4,\"tag\":\"a\"}");
        send(a, "k", "{\"v\":-2,\"tag\":{\"nested\":true}}");
        JsonNode r = send(a, "k", "{\"v\":7,\"tag\":null}");
        assertEquals(-2, r.get("lo").asLong());
        assertEquals(7, r.get("hi").asLong());
        assertEquals(3.0, r.get("mean").asDouble());
        assertEquals(3, r.get("n").asLong());
        assertTrue(r.get("tag").isNull());
        assertTrue(!r.has("_avg"), r.toString());
    }
}
