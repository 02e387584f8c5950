package io.weir.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cel.common.values.NullValue;
import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Event;
import io.weir.fixtures.OperatorHarness;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The lookup on its own: the table kept per key, updates, tombstones, inner and left. */
class LookupTest {
    private static final String TABLE = "customers";

    private static Event order(OperatorHarness h, String key, long id) throws Exception {
        h.inputTopic = "orders";
        return h.process(key, Map.of("order", id), id);
    }

    private static void table(OperatorHarness h, String key, Object value) throws Exception {
        h.inputTopic = TABLE;
        assertNull(h.process(key, value, 0), "a table record goes no further than the lookup");
    }

    @Test
    void aRecordGetsItsKeysLatestTableValueAndATombstoneDeletesIt() throws Exception {
        OperatorHarness h = new OperatorHarness(new Lookup(TABLE, Codecs.JSON, false, "customer"));
        table(h, "c1", Map.of("tier", "gold"));
        assertEquals(
                Map.of("order", 1L, "customer", Map.of("tier", "gold")),
                order(h, "c1", 1).value());
        table(h, "c1", Map.of("tier", "platinum"));
        assertEquals(Map.of("tier", "platinum"), ((Map<?, ?>) order(h, "c1", 2).value()).get("customer"));
        assertNull(order(h, "c2", 3), "an inner lookup drops a record whose key is not in the table");
        table(h, "c1", null);
        assertNull(order(h, "c1", 4), "the tombstone deleted c1");
        assertEquals(2, h.emitted.size());
    }

    @Test
    void aRecordSeesTheTableAsOfItsTimestampWhenTheTableIsReadAheadOfTheStream() throws Exception {
        // While a barrier holds the stream back, the table is read on to its own barrier: its later
        // versions arrive before the orders they must not reach yet.
        OperatorHarness h = new OperatorHarness(new Lookup(TABLE, Codecs.JSON, false, "customer"));
        h.inputTopic = TABLE;
        assertNull(h.process("c1", Map.of("v", 1L), 100));
        assertNull(h.process("c1", Map.of("v", 2L), 300));
        assertNull(h.process("c1", null, 500));
        assertNull(h.process("c1", Map.of("v", 3L), 700));
        assertNull(order(h, "c1", 50), "no version of c1 at 50 yet");
        assertEquals(Map.of("v", 1L), ((Map<?, ?>) order(h, "c1", 150).value()).get("customer"));
        assertEquals(Map.of("v", 2L), ((Map<?, ?>) order(h, "c1", 350).value()).get("customer"));
        assertNull(order(h, "c1", 550), "deleted at 500");
        assertEquals(Map.of("v", 3L), ((Map<?, ?>) order(h, "c1", 800).value()).get("customer"));
        // A table record older than the stream's time is its key's value at once.
        table(h, "c1", Map.of("v", 4L));
        assertEquals(Map.of("v", 4L), ((Map<?, ?>) order(h, "c1", 801).value()).get("customer"));

        // The latest record of a key wins, as in a compacted topic: a correction older than a version
        // still waiting takes effect after it.
        h.inputTopic = TABLE;
        assertNull(h.process("c1", Map.of("v", 5L), 900));
        assertNull(h.process("c1", null, 850));
        assertEquals(Map.of("v", 4L), ((Map<?, ?>) order(h, "c1", 870).value()).get("customer"));
        assertNull(order(h, "c1", 901), "the tombstone came after v5 in the topic");
    }

    @Test
    void aLeftLookupSendsARecordWithoutTableValueWithNull() throws Exception {
        OperatorHarness h = new OperatorHarness(new Lookup(TABLE, Codecs.JSON, true, "customer"));
        Event e = order(h, "c9", 1);
        assertEquals(NullValue.NULL_VALUE, ((Map<?, ?>) e.value()).get("customer"));
        assertEquals(1L, ((Map<?, ?>) e.value()).get("order"));
    }

    @Test
    void aRecordThatIsNotAnObjectOrHasNoKeyIsABadRecord() throws Exception {
        OperatorHarness h = new OperatorHarness(new Lookup(TABLE, Codecs.JSON, true, "customer"));
        h.inputTopic = "orders";
        assertThrows(BadRecordException.class, () -> h.process("c1", "text", 0));
        assertThrows(BadRecordException.class, () -> h.process(null, Map.of("order", 1L), 0));
    }
}
