package io.weir.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Event;
import io.weir.fixtures.OperatorHarness;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AggregateTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private OperatorHarness harness;

    private Aggregate aggregate(Aggregate.Spec spec) {
        Aggregate a = new Aggregate(spec);
        harness = new OperatorHarness(a);
        return a;
    }

    private static Aggregate.Spec runningTotals() {
        return new Aggregate.Spec(
                "user",
                "count",
                Map.of("amount", "sum"),
                Map.of(),
                Map.of(),
                Map.of(),
                Map.of(),
                Map.of("seq", "lastSeq"));
    }

    private JsonNode send(Aggregate a, String key, String json) throws Exception {
        Event e = harness.json(key, json);
        return JSON.readTree(Json.encode(e.value()));
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
    void integerSumsStayExactAndAnOverflowIsRefusedNotTurnedIntoADouble() throws Exception {
        Aggregate a = aggregate(runningTotals());
        assertTrue(send(a, "k", "{\"amount\":" + Long.MAX_VALUE + ",\"seq\":1}")
                .get("sum")
                .isIntegralNumber());
        BadRecordException overflow =
                assertThrows(BadRecordException.class, () -> send(a, "k", "{\"amount\":" + Long.MAX_VALUE + "}"));
        assertTrue(overflow.getMessage().contains("overflow"), overflow.getMessage());
        JsonNode after = send(a, "k", "{\"amount\":-1,\"seq\":3}");
        assertEquals(Long.MAX_VALUE - 1, after.get("sum").asLong());
        assertEquals(2, after.get("count").asLong());
        Aggregate b = aggregate(new Aggregate.Spec(
                "key", null, Map.of("amount", "sum"), Map.of(), Map.of(), Map.of(), Map.of(), Map.of()));
        send(b, "x", "{\"amount\":2}");
        assertEquals(4.5, send(b, "x", "{\"amount\":2.5}").get("sum").asDouble());
    }

    @Test
    void minMaxAndAverageFollowEveryUpdateWithoutLeakingTheirHelpers() throws Exception {
        Map<String, String> min = new LinkedHashMap<>(Map.of("v", "lo"));
        Aggregate a = aggregate(new Aggregate.Spec(
                "key",
                "n",
                Map.of(),
                min,
                Map.of("v", "hi"),
                Map.of("v", "mean"),
                Map.of("tag", "firstTag"),
                Map.of("tag", "tag")));
        send(a, "k", "{\"v\":4,\"tag\":\"a\"}");
        send(a, "k", "{\"v\":-2,\"tag\":{\"nested\":true}}");
        JsonNode r = send(a, "k", "{\"v\":7,\"tag\":null}");
        assertEquals(-2, r.get("lo").asLong());
        assertEquals(7, r.get("hi").asLong());
        assertEquals(3.0, r.get("mean").asDouble());
        assertEquals(3, r.get("n").asLong());
        assertTrue(r.get("tag").isNull());
        assertEquals("a", r.get("firstTag").asText());
        assertEquals("[\"key\",\"n\",\"lo\",\"hi\",\"mean\",\"firstTag\",\"tag\"]", JSON.writeValueAsString(names(r)));
    }

    @Test
    void aRecordWithoutKeyIsRefused() throws Exception {
        Aggregate a = aggregate(runningTotals());
        BadRecordException e = assertThrows(BadRecordException.class, () -> send(a, null, "{\"amount\":1,\"seq\":1}"));
        assertTrue(e.getMessage().contains("needs a record key"), e.getMessage());
    }

    private static List<String> names(JsonNode n) {
        List<String> out = new ArrayList<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }

    @Test
    void theOutputIsAReadOnlyOrderedMapEqualToTheDocumentItStandsForAndWrittenAsTheSameJson() throws Exception {
        Map<String, String> sum = new LinkedHashMap<>();
        sum.put("amount", "total");
        sum.put("fee", "fees");
        Aggregate a = aggregate(new Aggregate.Spec(
                "user",
                "n",
                sum,
                Map.of("amount", "smallest"),
                Map.of(),
                Map.of("amount", "mean"),
                Map.of("seq", "firstSeq"),
                // "fees" again: a map put into twice keeps the first place and the later value
                Map.of("fee", "fees")));
        harness.json("u1", "{\"amount\":4,\"fee\":1,\"seq\":7}");
        Event e = harness.json("u1", "{\"amount\":2.5,\"fee\":2,\"seq\":8}");
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("user", "u1");
        expected.put("n", 2L);
        expected.put("total", 6.5);
        expected.put("fees", 3L);
        expected.put("smallest", 2.5);
        expected.put("mean", 3.25);
        expected.put("firstSeq", 7L);
        expected.put("fees", 2L);
        Map<?, ?> out = (Map<?, ?>) e.value();
        assertEquals(expected, out);
        assertEquals(out, expected);
        assertEquals(expected.hashCode(), out.hashCode());
        assertEquals(List.copyOf(expected.keySet()), List.copyOf(out.keySet()), "in output order");
        assertEquals(2L, out.get("fees"));
        assertEquals(null, out.get("missing"));
        assertEquals(
                new String(Json.encode(expected), java.nio.charset.StandardCharsets.UTF_8),
                new String(Json.encode(out), java.nio.charset.StandardCharsets.UTF_8));
        @SuppressWarnings("unchecked")
        Map<String, Object> writable = (Map<String, Object>) out;
        assertThrows(UnsupportedOperationException.class, () -> writable.put("x", 1L));
    }
}
