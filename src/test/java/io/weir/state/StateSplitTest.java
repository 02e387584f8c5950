package io.weir.state;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

class StateSplitTest {
    /** Stand-in partitioners of the whole key: two partitions before, three after. */
    private static final ToIntFunction<byte[]> OLD = k -> Math.floorMod(Arrays.hashCode(k), 2);

    private static final ToIntFunction<byte[]> NEW = k -> Math.floorMod(Arrays.hashCode(k), 3);

    private static byte[] key(int i) {
        return ("user-" + i).getBytes(UTF_8);
    }

    /** Fills task p's store as an operator would: every key of 0..99 whose old partition (mod 2) is p. */
    private static MemoryStateStore oldTask(int p) {
        MemoryStateStore store = new MemoryStateStore("stage-" + p);
        KeyedState state = new KeyedState(store);
        ValueState<Long> count = state.valueState("count", Serde.LONG);
        MapState<String, Long> seen = state.mapState("seen", Serde.STRING, Serde.LONG);
        Timers timers = state.timers("window");
        for (int i = 0; i < 100; i++) {
            byte[] k = key(i);
            if (OLD.applyAsInt(k) != p) {
                continue;
            }
            state.setCurrentKey(k);
            count.update((long) i);
            seen.put("a" + i, (long) i);
            seen.put("b" + i, (long) -i);
            timers.registerEventTime(1_000L + i);
            timers.registerProcessingTime(2_000L + i);
        }
        state.setCurrentKey(null); // state kept under a null key stays with its task
        count.update(-1L - p);
        state.putTaskEntry("watermarks", new byte[] {(byte) p});
        return store;
    }

    private static Map<String, byte[]> entries(StateStore store) {
        Map<String, byte[]> all = new TreeMap<>();
        for (Iterator<Map.Entry<byte[], byte[]>> it = store.scan(new byte[0]); it.hasNext(); ) {
            Map.Entry<byte[], byte[]> e = it.next();
            all.put(java.util.HexFormat.of().formatHex(e.getKey()), e.getValue());
        }
        return all;
    }

    @Test
    void everyEntryGoesToTheTaskOfItsKeyAndTheTasksOwnEntriesStay() {
        List<StateStore> from = List.of(oldTask(0), oldTask(1));
        Map<String, byte[]> before = new TreeMap<>();
        from.forEach(s -> before.putAll(entries(s)));
        List<StateStore> into = new ArrayList<>();
        for (int q = 0; q < 3; q++) {
            into.add(new MemoryStateStore("stage-" + q));
        }

        StateSplit.Counts counts = StateSplit.split(from, into, OLD, NEW);

        // Nothing lost, nothing doubled: the new stores together hold exactly the old entries.
        Map<String, byte[]> after = new TreeMap<>();
        into.forEach(s -> after.putAll(entries(s)));
        assertEquals(before.keySet(), after.keySet());
        before.forEach((k, v) -> assertArrayEquals(v, after.get(k), k));
        // (Each task's own entries and its null key's have one store key in every task: count per store.)
        int oldEntries = from.stream().mapToInt(s -> entries(s).size()).sum();
        assertEquals(oldEntries, counts.entries());
        assertEquals(oldEntries, into.stream().mapToInt(s -> entries(s).size()).sum());

        for (int q = 0; q < 3; q++) {
            KeyedState state = new KeyedState(into.get(q));
            ValueState<Long> count = state.valueState("count", Serde.LONG);
            MapState<String, Long> seen = state.mapState("seen", Serde.STRING, Serde.LONG);
            for (int i = 0; i < 100; i++) {
                byte[] k = key(i);
                state.setCurrentKey(k);
                boolean here = NEW.applyAsInt(k) == q;
                assertEquals(here ? (Long) (long) i : null, count.value(), "count of user-" + i + " in task " + q);
                assertEquals(here ? 2 : 0, seen.entries().size(), "map of user-" + i + " in task " + q);
            }
            // The timers of a task are those of its keys, each fired with its key.
            for (TimerDomain domain : TimerDomain.values()) {
                for (Timer t : state.takeDueTimers(domain, Long.MAX_VALUE)) {
                    assertEquals(q, NEW.applyAsInt(t.key()), "timer " + t + " in task " + q);
                }
            }
            state.setCurrentKey(null);
            if (q < 2) {
                assertEquals(-1L - q, count.value());
                assertArrayEquals(new byte[] {(byte) q}, state.taskEntry("watermarks"));
            } else {
                assertNull(count.value());
                assertNull(state.taskEntry("watermarks"));
            }
        }
        long moved = 0;
        for (String k : before.keySet()) {
            byte[] recordKey = KeyedState.recordKeyOf(java.util.HexFormat.of().parseHex(k));
            if (recordKey != null && recordKey.length > 0) {
                moved += OLD.applyAsInt(recordKey) != NEW.applyAsInt(recordKey) ? 1 : 0;
            }
        }
        assertEquals(moved, counts.moved());
    }

    @Test
    void theRecordKeyOfEveryLayoutIsFoundWholeAndTheTasksOwnEntriesHaveNone() {
        MemoryStateStore store = new MemoryStateStore("stage-0");
        KeyedState state = new KeyedState(store);
        byte[] k = "user-7".getBytes(UTF_8);
        state.setCurrentKey(k);
        state.valueState("count", Serde.LONG).update(1L);
        state.mapState("seen", Serde.STRING, Serde.LONG).put("order-9", 2L);
        state.listState("items", Serde.STRING).add("x");
        state.timers("window").registerEventTime(5L);
        state.timers("ttl").registerProcessingTime(6L);
        state.putTaskEntry("watermarks", new byte[] {1});

        List<String> keys = new ArrayList<>();
        for (Iterator<Map.Entry<byte[], byte[]>> it = store.scan(new byte[0]); it.hasNext(); ) {
            byte[] recordKey = KeyedState.recordKeyOf(it.next().getKey());
            keys.add(recordKey == null ? null : new String(recordKey, UTF_8));
        }
        // Value, map entry, list, two timers: the record key exactly; the task's own entry: none.
        List<String> expected = new ArrayList<>(java.util.Collections.nCopies(5, "user-7"));
        expected.add(null);
        assertEquals(expected, keys);
    }

    @Test
    void stateOfAKeyThatDoesNotBelongToItsTaskIsRefusedNotScattered() {
        MemoryStateStore task0 = new MemoryStateStore("stage-0");
        KeyedState state = new KeyedState(task0);
        byte[] stray = null;
        for (int i = 0; stray == null; i++) {
            stray = OLD.applyAsInt(key(i)) == 1 ? key(i) : null;
        }
        state.setCurrentKey(stray); // a key of partition 1 in task 0
        state.valueState("count", Serde.LONG).update(1L);
        List<StateStore> into = List.of(new MemoryStateStore("stage-0"), new MemoryStateStore("stage-1"));

        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> StateSplit.split(List.of(task0, new MemoryStateStore("stage-1")), into, OLD, NEW));
        assertTrue(
                e.getMessage()
                        .startsWith("task 0 holds state of a key that belongs to partition 1 (key '"
                                + new String(stray, UTF_8) + "')"),
                e.getMessage());
    }

    @Test
    void aKeyOfNoKeyedStateLayoutIsAnErrorNotAGuess() {
        MemoryStateStore odd = new MemoryStateStore("stage-0");
        odd.put(new byte[] {0x7f, 1, 2}, new byte[] {1});
        List<StateStore> into = List.of(new MemoryStateStore("stage-0"), new MemoryStateStore("stage-1"));

        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> StateSplit.split(List.of(odd), into, OLD, NEW));
        assertEquals("a key of no keyed-state layout (first byte 127)", e.getMessage());
    }
}
