package io.weir.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every state backend must do, run against each one: the typed state API, timers, scans,
 * snapshots that capture exactly the state at their synchronous part, and restores that give back
 * every key — or fail loudly naming the task, checkpoint and file.
 */
abstract class StateStoreContract {
    static final String TASK = "job-0";

    @TempDir
    Path dir;

    StateBackend backend;
    SnapshotStore snapshots;
    StateStore store;
    KeyedState state;
    private int generations;

    abstract StateBackend newBackend(Path root) throws IOException;

    @BeforeEach
    void open() throws IOException {
        backend = newBackend(dir.resolve("state"));
        snapshots = new FileSnapshotStore(dir.resolve("snapshots"));
        store = backend.open(TASK, nextGeneration(), null, snapshots);
        state = new KeyedState(store);
    }

    @AfterEach
    void close() {
        store.close();
        backend.close();
    }

    String nextGeneration() {
        return "g" + generations++;
    }

    /** Takes a snapshot, writes it and returns the restore point; the store goes on. */
    RestorePoint checkpoint(long id) throws IOException {
        StateHandle handle = store.snapshot(id).write(snapshots, () -> false);
        store.checkpointCompleted(id, handle);
        return new RestorePoint(TASK, id, handle);
    }

    /** Closes the store and opens it again from {@code from} (in {@code into}, a backend of its own, if given). */
    void reopen(RestorePoint from) throws IOException {
        store.close();
        store = backend.open(TASK, nextGeneration(), from, snapshots);
        state = new KeyedState(store);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static Map<String, String> everything(StateStore s) {
        Map<String, String> all = new TreeMap<>();
        for (Iterator<Map.Entry<byte[], byte[]>> it = s.scan(new byte[0]); it.hasNext(); ) {
            Map.Entry<byte[], byte[]> e = it.next();
            all.put(
                    new String(e.getKey(), StandardCharsets.ISO_8859_1),
                    new String(e.getValue(), StandardCharsets.ISO_8859_1));
        }
        return all;
    }

    @Test
    void aPreparedSnapshotHoldsTheWritesBeforeAndAfterThePreparationAndNoneAfterTheBarrier() throws IOException {
        for (int i = 0; i < 2_000; i++) {
            store.put(bytes("key-" + i), bytes("before-" + i));
        }
        store.prepareSnapshot();
        for (int i = 0; i < 2_000; i += 3) {
            store.put(bytes("key-" + i), bytes("after-" + i));
        }
        store.delete(bytes("key-1"));
        store.put(bytes("new"), bytes("after"));
        Map<String, String> atBarrier = everything(store);
        RestorePoint point = checkpoint(1);
        store.put(bytes("key-2"), bytes("past the barrier"));
        store.put(bytes("later"), bytes("past the barrier"));
        store.prepareSnapshot(); // a preparation for a checkpoint that never comes changes nothing either

        reopen(point);
        assertEquals(atBarrier, everything(store));
        assertEquals(2_000, atBarrier.size());
        assertEquals("after-3", atBarrier.get("key-3"));
        assertEquals("before-2", atBarrier.get("key-2"));
    }

    @Test
    void aValueBelongsToTheCurrentKeyOnly() {
        ValueState<Long> count = state.valueState("count", Serde.LONG);
        state.setCurrentKey(bytes("a"));
        count.update(5L);
        state.setCurrentKey(bytes("b"));
        assertNull(count.value());
        count.update(7L);
        state.setCurrentKey(bytes("a"));
        assertEquals(5L, count.value());
        count.clear();
        assertNull(count.value());
        state.setCurrentKey(bytes("b"));
        assertEquals(7L, count.value());
    }

    @Test
    void mapStateListsItsEntriesInSerialisedKeyOrderAndClears() {
        MapState<String, Long> m = state.mapState("m", Serde.STRING, Serde.LONG);
        state.setCurrentKey(bytes("k"));
        m.put("zeta", 1L);
        m.put("alpha", 2L);
        m.put("mid", 3L);
        m.remove("mid");
        assertTrue(m.contains("alpha"));
        assertFalse(m.contains("mid"));
        assertEquals(
                List.of("alpha", "zeta"),
                m.entries().stream().map(Map.Entry::getKey).toList());
        state.setCurrentKey(bytes("other"));
        assertTrue(m.entries().isEmpty());
        state.setCurrentKey(bytes("k"));
        m.clear();
        assertTrue(m.entries().isEmpty());
    }

    @Test
    void listStateAppendsInOrderAndUpdateReplacesTheList() {
        ListState<String> l = state.listState("l", Serde.STRING);
        state.setCurrentKey(bytes("k"));
        l.add("one");
        l.add("");
        l.add("three");
        assertEquals(List.of("one", "", "three"), l.get());
        l.update(List.of("x"));
        assertEquals(List.of("x"), l.get());
        l.clear();
        assertEquals(List.of(), l.get());
    }

    @Test
    void anEmptyValueIsAValueNotAnAbsence() {
        store.put(bytes("k"), new byte[0]);
        assertArrayEquals(new byte[0], store.get(bytes("k")));
        store.delete(bytes("k"));
        assertNull(store.get(bytes("k")));
    }

    @Test
    void aScanReturnsExactlyThePrefixedKeysInUnsignedOrderAcrossManyBatches() {
        for (int i = 0; i < 1000; i++) {
            store.put(new byte[] {7, (byte) (i >> 8), (byte) i}, bytes("v" + i));
        }
        store.put(new byte[] {6, (byte) 0xFF}, bytes("before"));
        store.put(new byte[] {8}, bytes("after"));
        List<byte[]> keys = new ArrayList<>();
        store.scan(new byte[] {7}).forEachRemaining(e -> keys.add(e.getKey()));
        assertEquals(1000, keys.size());
        for (int i = 1; i < keys.size(); i++) {
            assertTrue(java.util.Arrays.compareUnsigned(keys.get(i - 1), keys.get(i)) < 0);
        }
        List<byte[]> high = new ArrayList<>();
        store.scan(new byte[] {6, (byte) 0xFF}).forEachRemaining(e -> high.add(e.getKey()));
        assertEquals(1, high.size());
    }

    @Test
    void timersAreDueInTimeOrderPerDomainAndFireOnce() {
        Timers timers = state.timers("op");
        state.setCurrentKey(bytes("a"));
        timers.registerEventTime(30);
        timers.registerEventTime(-5);
        timers.registerProcessingTime(10);
        state.setCurrentKey(bytes("b"));
        timers.registerEventTime(20);
        timers.registerEventTime(99);
        timers.deleteEventTime(99);

        List<Timer> due = state.takeDueTimers(TimerDomain.EVENT_TIME, 25);
        assertEquals(List.of(-5L, 20L), due.stream().map(Timer::timestamp).toList());
        assertArrayEquals(bytes("a"), due.get(0).key());
        assertEquals("op", due.get(0).owner());
        assertTrue(state.takeDueTimers(TimerDomain.EVENT_TIME, 25).isEmpty());
        assertEquals(
                List.of(30L),
                state.takeDueTimers(TimerDomain.EVENT_TIME, 1000).stream()
                        .map(Timer::timestamp)
                        .toList());
        assertEquals(1, state.takeDueTimers(TimerDomain.PROCESSING_TIME, 10).size());
    }

    @Test
    void aSnapshotHoldsTheStateOfItsSynchronousPartWhileWritesGoOn() throws IOException {
        store.put(bytes("kept"), bytes("1"));
        store.put(bytes("changed"), bytes("before"));
        SnapshotPart part = store.snapshot(1);
        store.put(bytes("changed"), bytes("after"));
        store.put(bytes("added"), bytes("later"));
        store.delete(bytes("kept"));
        StateHandle handle = part.write(snapshots, () -> false);

        reopen(new RestorePoint(TASK, 1, handle));
        assertEquals(Map.of("kept", "1", "changed", "before"), everything(store));
    }

    @Test
    void randomChangesSurviveSnapshotsAndRestoresKeyForKey() throws IOException {
        Random random = new Random(42);
        TreeMap<String, String> model = new TreeMap<>();
        RestorePoint last = null;
        for (long checkpoint = 1; checkpoint <= 5; checkpoint++) {
            for (int i = 0; i < 2000; i++) {
                String key = "key-" + random.nextInt(1500);
                if (random.nextInt(5) == 0) {
                    store.delete(bytes(key));
                    model.remove(key);
                } else {
                    String value = "v" + random.nextLong();
                    store.put(bytes(key), bytes(value));
                    model.put(key, value);
                }
            }
            last = checkpoint(checkpoint);
            if (checkpoint % 2 == 0) {
                reopen(last);
                assertEquals(model, everything(store));
            }
        }
        reopen(last);
        assertEquals(model, everything(store));
    }

    @Test
    void aRestoreIntoAnEmptyDirectoryGivesBackEveryKey() throws IOException {
        for (int i = 0; i < 5000; i++) {
            store.put(bytes("k" + i), bytes("value-" + i));
        }
        RestorePoint point = checkpoint(1);
        Map<String, String> original = everything(store);
        try (StateBackend fresh = newBackend(dir.resolve("new-pod"));
                StateStore restored = fresh.open(TASK, nextGeneration(), point, snapshots)) {
            assertEquals(original, everything(restored));
        }
    }

    @Test
    void aRestoredStoreSnapshotsAndRestoresAgain() throws IOException {
        store.put(bytes("a"), bytes("1"));
        reopen(checkpoint(1));
        store.put(bytes("b"), bytes("2"));
        reopen(checkpoint(2));
        assertEquals(Map.of("a", "1", "b", "2"), everything(store));
    }

    @Test
    void aSnapshotOfEmptyStateRestoresEmpty() throws IOException {
        reopen(checkpoint(1));
        assertEquals(Map.of(), everything(store));
    }

    @Test
    void aCancelledSnapshotStopsWithCancellation() {
        store.put(bytes("a"), bytes("1"));
        SnapshotPart part = store.snapshot(1);
        assertThrows(CancellationException.class, () -> part.write(snapshots, () -> true));
    }

    @Test
    void aDamagedSnapshotFileFailsTheRestoreNamingTaskCheckpointAndFile() throws IOException {
        store.put(bytes("a"), bytes("1"));
        RestorePoint point = checkpoint(3);
        StoredFile damaged = point.handle().files().get(0);
        Path onDisk = dir.resolve("snapshots").resolve(damaged.name());
        byte[] content = Files.readAllBytes(onDisk);
        content[content.length / 2] ^= 1;
        Files.write(onDisk, content);
        store.close();

        try (StateBackend fresh = newBackend(dir.resolve("new-pod"))) {
            StateRestoreException e = assertThrows(
                    StateRestoreException.class, () -> fresh.open(TASK, nextGeneration(), point, snapshots));
            assertTrue(e.getMessage().contains("task " + TASK), e.getMessage());
            assertTrue(e.getMessage().contains("checkpoint 3"), e.getMessage());
            assertTrue(e.getMessage().contains(damaged.name()), e.getMessage());
        }
    }

    @Test
    void aMissingSnapshotFileFailsTheRestore() throws IOException {
        store.put(bytes("a"), bytes("1"));
        RestorePoint point = checkpoint(1);
        snapshots.delete(point.handle().files().get(point.handle().files().size() - 1));
        store.close();
        try (StateBackend fresh = newBackend(dir.resolve("new-pod"))) {
            StateRestoreException e = assertThrows(
                    StateRestoreException.class, () -> fresh.open(TASK, nextGeneration(), point, snapshots));
            assertTrue(e.getMessage().contains("missing"), e.getMessage());
        }
    }
}
