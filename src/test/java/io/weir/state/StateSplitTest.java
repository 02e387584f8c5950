package io.weir.state;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

class StateSplitTest {
    /** A stand-in partitioner: the last byte of the key. */
    private static final ToIntFunction<byte[]> BY_LAST_BYTE = k -> k[k.length - 1] % 3;

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
            if (k[k.length - 1] % 2 != p) {
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

        StateSplit.Counts counts = StateSplit.split(from, into, BY_LAST_BYTE);

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
                boolean here = BY_LAST_BYTE.applyAsInt(k) == q;
                assertEquals(here ? (Long) (long) i : null, count.value(), "count of user-" + i + " in task " + q);
                assertEquals(here ? 2 : 0, seen.entries().size(), "map of user-" + i + " in task " + q);
            }
            // The timers of a task are those of its keys, each fired with its key.
            for (TimerDomain domain : TimerDomain.values()) {
                for (Timer t : state.takeDueTimers(domain, Long.MAX_VALUE)) {
                    assertEquals(q, BY_LAST_BYTE.applyAsInt(t.key()), "timer " + t + " in task " + q);
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
        // Keys ending in 0..9: old partition d % 2, new d % 3; those where they differ moved.
        long moved = 0;
        for (String k : before.keySet()) {
            byte[] storeKey = java.util.HexFormat.of().parseHex(k);
            byte[] recordKey = KeyedState.recordKeyOf(storeKey);
            if (recordKey != null && recordKey.length > 0) {
                int d = recordKey[recordKey.length - 1];
                moved += d % 2 != d % 3 ? 1 : 0;
            }
        }
        assertEquals(moved, counts.moved());
    }

    @Test
    void aKeyOfNoKeyedStateLayoutIsAnErrorNotAGuess() {
        MemoryStateStore odd = new MemoryStateStore("stage-0");
        odd.put(new byte[] {0x7f, 1, 2}, new byte[] {1});
        List<StateStore> into = List.of(new MemoryStateStore("stage-0"), new MemoryStateStore("stage-1"));

        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> StateSplit.split(List.of(odd), into, BY_LAST_BYTE));
        assertEquals("a key of no keyed-state layout (first byte 127)", e.getMessage());
    }
}
