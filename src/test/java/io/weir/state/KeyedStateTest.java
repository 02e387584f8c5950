package io.weir.state;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.fixtures.MemorySnapshotStore;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KeyedStateTest {
    private final MemoryStateStore store = new MemoryStateStore("stage-0");
    private final KeyedState state = new KeyedState(store);

    private void key(String k) {
        state.setCurrentKey(k.getBytes(UTF_8));
    }

    /** A timer as text, since {@link Timer} holds its key as an array. */
    private static String describe(Timer t) {
        return t.domain() + "@" + t.timestamp() + ":" + t.owner() + "/" + new String(t.key(), UTF_8);
    }

    private static List<String> describe(List<Timer> timers) {
        List<String> out = new ArrayList<>();
        for (Timer t : timers) {
            out.add(describe(t));
        }
        return out;
    }

    // Values
    @Test
    void aValueBelongsToTheCurrentKey() {
        ValueState<Long> count = state.valueState("count", Serde.LONG);
        key("a");
        count.update(1L);
        key("b");
        assertNull(count.value());
        count.update(2L);

        key("a");
        assertEquals(1L, count.value());
        key("b");
        assertEquals(2L, count.value());
    }

    @Test
    void aValueIsStoredUnderTheLayoutCheckpointsHoldNamespaceKeyLengthAndKey() {
        // Checkpoints of earlier versions restore only if this layout stays: 0x01, the name's
        // length and bytes, the key's length as 4 big-endian bytes, the key.
        ValueState<Long> count = state.valueState("count", Serde.LONG);
        byte[] key = new byte[300];
        java.util.Arrays.fill(key, (byte) 'k');
        state.setCurrentKey(key);
        count.update(7L);
        java.util.Iterator<Map.Entry<byte[], byte[]>> all = store.scan(new byte[] {0x01});
        byte[] stored = all.next().getKey();
        assertFalse(all.hasNext());
        java.nio.ByteBuffer expected = java.nio.ByteBuffer.allocate(2 + 5 + 4 + 300)
                .put((byte) 0x01)
                .put((byte) 5)
                .put("count".getBytes(UTF_8))
                .putInt(300)
                .put(key);
        assertEquals(
                java.util.HexFormat.of().formatHex(expected.array()),
                java.util.HexFormat.of().formatHex(stored));
    }

    @Test
    void updatingToNullClearsTheValue() {
        ValueState<String> last = state.valueState("last", Serde.STRING);
        key("a");
        last.update("x");

        last.update(null);

        assertNull(last.value());
        assertEquals(0, store.approximateEntries());
    }

    @Test
    void statesWithDifferentNamesAreIndependent() {
        ValueState<Long> one = state.valueState("one", Serde.LONG);
        ValueState<Long> two = state.valueState("two", Serde.LONG);
        key("a");
        one.update(1L);
        two.update(2L);
        one.clear();

        assertNull(one.value());
        assertEquals(2L, two.value());
    }

    @Test
    void aKeyThatIsAPrefixOfAnotherKeyDoesNotSeeItsValue() {
        ValueState<Long> count = state.valueState("count", Serde.LONG);
        key("ab");
        count.update(7L);

        key("a");
        assertNull(count.value());
        state.setCurrentKey(null);
        assertNull(count.value(), "the empty key");
    }

    @Test
    void aStateNameMustBeOneTo255Bytes() {
        assertThrows(IllegalArgumentException.class, () -> state.valueState("", Serde.LONG));
        assertThrows(IllegalArgumentException.class, () -> state.valueState("x".repeat(256), Serde.LONG));
        state.valueState("x".repeat(255), Serde.LONG);
    }
    // Maps
    @Test
    void aMapBelongsToTheCurrentKey() {
        MapState<String, Long> seen = state.mapState("seen", Serde.STRING, Serde.LONG);
        key("a");
        seen.put("x", 1L);
        seen.put("y", 2L);
        key("b");
        seen.put("x", 10L);

        assertEquals(10L, seen.get("x"));
        assertNull(seen.get("y"));
        assertFalse(seen.contains("y"));
        key("a");
        assertEquals(1L, seen.get("x"));
        assertTrue(seen.contains("y"));
    }

    @Test
    void entriesAreInSerialisedKeyOrderAndOnlyOfTheCurrentKey() {
        MapState<String, Long> seen = state.mapState("seen", Serde.STRING, Serde.LONG);
        key("b");
        seen.put("other", 0L);
        key("a");
        seen.put("c", 3L);
        seen.put("a", 1L);
        seen.put("b", 2L);

        assertEquals(List.of(entry("a", 1L), entry("b", 2L), entry("c", 3L)), seen.entries());
    }

    @Test
    void removeAndClearDeleteEntries() {
        MapState<String, Long> seen = state.mapState("seen", Serde.STRING, Serde.LONG);
        key("a");
        seen.put("x", 1L);
        seen.put("y", 2L);
        seen.put("z", 3L);
        key("b");
        seen.put("x", 4L);
        key("a");

        seen.remove("y");
        assertEquals(List.of(entry("x", 1L), entry("z", 3L)), seen.entries());
        seen.clear();
        assertEquals(List.of(), seen.entries());
        key("b");
        assertEquals(List.of(entry("x", 4L)), seen.entries(), "clear of one key touched another");
    }

    @Test
    void entriesSeeUpdatesAcrossSnapshotLayers() {
        MapState<String, Long> seen = state.mapState("seen", Serde.STRING, Serde.LONG);
        key("a");
        seen.put("x", 1L);
        seen.put("y", 2L);
        store.snapshot(1);
        seen.remove("x");
        seen.put("y", 20L);
        seen.put("z", 3L);
        store.snapshot(2);
        seen.put("x", 10L);

        assertEquals(List.of(entry("x", 10L), entry("y", 20L), entry("z", 3L)), seen.entries());
    }

    private static Map.Entry<String, Long> entry(String k, long v) {
        return new SimpleImmutableEntry<>(k, v);
    }
    // Lists
    @Test
    void aListKeepsItsItemsInOrder() {
        ListState<String> items = state.listState("items", Serde.STRING);
        key("a");
        assertEquals(List.of(), items.get());

        items.add("x");
        items.add("");
        items.add("y");

        assertEquals(List.of("x", "", "y"), items.get());
    }

    @Test
    void getReturnsACopy() {
        ListState<String> items = state.listState("items", Serde.STRING);
        key("a");
        items.add("x");

        items.get().add("y");

        assertEquals(List.of("x"), items.get());
    }

    @Test
    void updateReplacesAndClearEmpties() {
        ListState<String> items = state.listState("items", Serde.STRING);
        key("a");
        items.add("x");
        key("b");
        items.add("other");
        key("a");

        items.update(List.of("p", "q"));
        assertEquals(List.of("p", "q"), items.get());
        items.update(List.of());
        assertEquals(List.of(), items.get());
        items.add("r");
        items.clear();
        assertEquals(List.of(), items.get());
        key("b");
        assertEquals(List.of("other"), items.get());
    }
    // TimersOfState
    @Test
    void dueTimersComeOutOrderedByTimeAcrossKeysAndOwners() {
        Timers first = state.timers("0");
        Timers second = state.timers("1");
        key("k1");
        first.registerEventTime(30);
        second.registerEventTime(10);
        key("k2");
        first.registerEventTime(20);
        second.registerEventTime(-5);
        first.registerEventTime(40);

        List<Timer> due = state.takeDueTimers(TimerDomain.EVENT_TIME, 30);

        assertEquals(
                List.of("EVENT_TIME@-5:1/k2", "EVENT_TIME@10:1/k1", "EVENT_TIME@20:0/k2", "EVENT_TIME@30:0/k1"),
                describe(due));
    }

    @Test
    void takenTimersAreRemoved() {
        Timers timers = state.timers("0");
        key("k");
        timers.registerEventTime(1);
        timers.registerEventTime(2);

        assertEquals(1, state.takeDueTimers(TimerDomain.EVENT_TIME, 1).size());
        assertEquals(List.of("EVENT_TIME@2:0/k"), describe(state.takeDueTimers(TimerDomain.EVENT_TIME, 5)));
        assertEquals(List.of(), state.takeDueTimers(TimerDomain.EVENT_TIME, Long.MAX_VALUE));
        assertEquals(0, store.approximateEntries());
    }

    @Test
    void aTimerNamesItsOwnerSoItReachesOnlyThatOwner() {
        Timers mine = state.timers("0");
        Timers theirs = state.timers("1");
        key("k");
        mine.registerProcessingTime(5);
        theirs.registerProcessingTime(6);
        theirs.deleteProcessingTime(5); // not theirs to delete

        List<Timer> due = state.takeDueTimers(TimerDomain.PROCESSING_TIME, 10);

        assertEquals(List.of("PROCESSING_TIME@5:0/k", "PROCESSING_TIME@6:1/k"), describe(due));
    }

    @Test
    void domainsAreSeparate() {
        Timers timers = state.timers("0");
        key("k");
        timers.registerEventTime(1);
        timers.registerProcessingTime(2);

        assertEquals(List.of("PROCESSING_TIME@2:0/k"), describe(state.takeDueTimers(TimerDomain.PROCESSING_TIME, 100)));
        assertEquals(List.of("EVENT_TIME@1:0/k"), describe(state.takeDueTimers(TimerDomain.EVENT_TIME, 100)));
    }

    @Test
    void aKeyHasOneTimerPerDomainAndTimestamp() {
        Timers timers = state.timers("0");
        key("k");
        timers.registerEventTime(7);
        timers.registerEventTime(7);

        assertEquals(1, state.takeDueTimers(TimerDomain.EVENT_TIME, 7).size());
    }

    @Test
    void aDeletedTimerDoesNotFire() {
        Timers timers = state.timers("0");
        key("k");
        timers.registerEventTime(7);
        key("other");
        timers.registerEventTime(7);
        key("k");
        timers.deleteEventTime(7);

        assertEquals(List.of("EVENT_TIME@7:0/other"), describe(state.takeDueTimers(TimerDomain.EVENT_TIME, 7)));
    }

    @Test
    void timersAreStateAndSurviveASnapshotAndRestore() throws Exception {
        Timers timers = state.timers("2");
        key("k");
        timers.registerEventTime(Long.MIN_VALUE);
        timers.registerEventTime(Long.MAX_VALUE);
        MemorySnapshotStore files = new MemorySnapshotStore();
        StateHandle handle = store.snapshot(1).write(files, () -> false);

        KeyedState restored =
                new KeyedState(MemoryStateStore.restore(new RestorePoint("stage-0", 1, handle), "restored", files));

        assertEquals(
                List.of("EVENT_TIME@" + Long.MIN_VALUE + ":2/k", "EVENT_TIME@" + Long.MAX_VALUE + ":2/k"),
                describe(restored.takeDueTimers(TimerDomain.EVENT_TIME, Long.MAX_VALUE)));
    }

    @Test
    void timersAndStateDoNotSeeEachOther() {
        ValueState<Long> count = state.valueState("count", Serde.LONG);
        Timers timers = state.timers("0");
        key("k");
        count.update(1L);
        timers.registerEventTime(1);

        assertEquals(1, state.takeDueTimers(TimerDomain.EVENT_TIME, 1).size());
        assertEquals(1L, count.value());
    }

    @Test
    void anOwnerNameMustFitInOneByteOfLength() {
        assertThrows(IllegalArgumentException.class, () -> state.timers("o".repeat(256)));
    }

    @Test
    void aStateNameIsOneKindOfState() {
        KeyedState state = new KeyedState(new MemoryStateStore("t-0"));
        state.valueState("totals", Serde.LONG);
        state.valueState("totals", Serde.LONG); // asked again (an operator opened again): the same state
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> state.mapState("totals", Serde.STRING, Serde.LONG));
        assertTrue(e.getMessage().contains("'totals' is a value state already"), e.getMessage());
        state.mapState("seen", Serde.STRING, Serde.LONG);
        assertThrows(IllegalArgumentException.class, () -> state.listState("seen", Serde.LONG));
    }
}
