package io.weir.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.fixtures.MemorySnapshotStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MemoryStateStoreLayersTest {
    private final MemoryStateStore store = new MemoryStateStore("stage-0");
    private final MemorySnapshotStore files = new MemorySnapshotStore();

    private static byte[] b(int... bytes) {
        byte[] out = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            out[i] = (byte) bytes[i];
        }
        return out;
    }

    private static byte[] s(String text) {
        return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Entries as "key=value" text (keys and values as strings), in scan order. */
    private static List<String> scan(StateStore store, byte[] prefix) {
        List<String> out = new ArrayList<>();
        for (Iterator<Map.Entry<byte[], byte[]>> it = store.scan(prefix); it.hasNext(); ) {
            Map.Entry<byte[], byte[]> e = it.next();
            out.add(new String(e.getKey(), java.nio.charset.StandardCharsets.UTF_8) + "="
                    + new String(e.getValue(), java.nio.charset.StandardCharsets.UTF_8));
        }
        return out;
    }

    private static List<String> all(StateStore store) {
        return scan(store, new byte[0]);
    }

    @Test
    void aPutValueIsReadBackAndADeletedOneIsGone() {
        store.put(s("a"), s("1"));
        store.put(s("a"), s("2"));
        store.put(s("b"), s("3"));
        store.delete(s("b"));
        store.delete(s("never"));

        assertArrayEquals(s("2"), store.get(s("a")));
        assertNull(store.get(s("b")));
        assertEquals(List.of("a=2"), all(store));
    }

    @Test
    void aNullValueIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> store.put(s("a"), null));
    }

    @Test
    void theStoreKeepsItsOwnCopyOfAKey() {
        byte[] key = s("a");
        store.put(key, s("1"));
        key[0] = 'z';

        assertArrayEquals(s("1"), store.get(s("a")));
        assertNull(store.get(s("z")));
    }

    @Test
    void aValueChangedByItsWriterAfterThePutChangesNeitherTheStateNorASnapshot() throws Exception {
        byte[] value = s("1");
        store.put(s("a"), value);
        SnapshotPart part = store.snapshot(1);

        value[0] = '9';

        assertArrayEquals(s("1"), store.get(s("a")));
        assertEquals(
                List.of("a=1"),
                all(MemoryStateStore.restore(
                        new RestorePoint("stage-0", 1, part.write(files, () -> false)), "restored", files)));
    }

    @Test
    void changingAnArrayTheStoreReturnedChangesNeitherTheStateNorASnapshot() throws Exception {
        store.put(s("a"), s("1"));
        SnapshotPart part = store.snapshot(1);

        store.get(s("a"))[0] = '9';
        Map.Entry<byte[], byte[]> scanned = store.scan(s("a")).next();
        scanned.getValue()[0] = '8';
        scanned.getKey()[0] = 'z';

        assertArrayEquals(s("1"), store.get(s("a")));
        assertEquals(List.of("a=1"), all(store));
        assertEquals(
                List.of("a=1"),
                all(MemoryStateStore.restore(
                        new RestorePoint("stage-0", 1, part.write(files, () -> false)), "restored", files)));
    }

    @Test
    void anEmptyValueIsAValueNotADeletion() throws Exception {
        store.put(s("a"), new byte[0]);
        assertArrayEquals(new byte[0], store.get(s("a")));
        store.snapshot(1).write(files, () -> false);
        store.put(s("b"), new byte[0]);

        assertArrayEquals(new byte[0], store.get(s("a")));
        assertArrayEquals(new byte[0], store.get(s("b")));
        assertEquals(List.of("a=", "b="), all(store));
        StateHandle handle = store.snapshot(2).write(files, () -> false);
        assertEquals(
                List.of("a=", "b="),
                all(MemoryStateStore.restore(new RestorePoint("stage-0", 1, handle), "restored", files)));
    }

    @Test
    void scanReturnsTheKeysWithThePrefixInUnsignedOrder() {
        store.put(b(0x01, 0x80), s("x80"));
        store.put(b(0x01, 0x7F), s("x7f"));
        store.put(b(0x01, 0xFF, 0x00), s("xff00"));
        store.put(b(0x01), s("x"));
        store.put(b(0x02), s("next"));
        store.put(b(0x00, 0xFF), s("before"));

        List<String> values = new ArrayList<>();
        store.scan(b(0x01)).forEachRemaining(e -> values.add(new String(e.getValue())));

        assertEquals(List.of("x", "x7f", "x80", "xff00"), values);
    }

    @Test
    void scanOfAnAllOnesPrefixRunsToTheEnd() {
        store.put(b(0xFF), s("a"));
        store.put(b(0xFF, 0xFF, 0x01), s("b"));
        store.put(b(0xFE, 0xFF), s("no"));

        List<String> values = new ArrayList<>();
        store.scan(b(0xFF, 0xFF)).forEachRemaining(e -> values.add(new String(e.getValue())));
        assertEquals(List.of("b"), values);
        values.clear();
        store.scan(b(0xFF)).forEachRemaining(e -> values.add(new String(e.getValue())));
        assertEquals(List.of("a", "b"), values);
    }

    @Test
    void scanAcrossLayersSeesTheNewestValueAndHidesTombstones() {
        store.put(s("a1"), s("old"));
        store.put(s("a2"), s("old"));
        store.put(s("a3"), s("old"));
        store.put(s("b1"), s("old"));
        store.snapshot(1); // never written: the layers stay apart
        store.delete(s("a1"));
        store.put(s("a2"), s("new"));
        store.put(s("a4"), s("new"));
        store.snapshot(2);
        store.put(s("a1"), s("back"));
        store.delete(s("a3"));
        store.delete(s("b1"));

        assertTrue(store.layers() >= 3, "the test needs several layers, had " + store.layers());
        assertEquals(List.of("a1=back", "a2=new", "a4=new"), scan(store, s("a")));
        assertEquals(List.of(), scan(store, s("b")));
        assertNull(store.get(s("a3")));
        assertArrayEquals(s("back"), store.get(s("a1")));
    }

    @Test
    void aScanIteratorEndsWithNoSuchElement() {
        store.put(s("a"), s("1"));
        Iterator<Map.Entry<byte[], byte[]>> it = store.scan(s("a"));
        it.next();

        assertThrows(NoSuchElementException.class, it::next);
    }

    @Test
    void aSnapshotHoldsTheStateAtSnapshotTimeWhileTheTaskKeepsWriting() throws Exception {
        store.put(s("keep"), s("1"));
        store.put(s("change"), s("1"));
        store.put(s("drop"), s("1"));
        SnapshotPart part = store.snapshot(1);

        store.put(s("change"), s("2"));
        store.delete(s("drop"));
        store.put(s("new"), s("2"));
        store.snapshot(2); // a later snapshot must not disturb the earlier one either
        store.delete(s("keep"));

        StateHandle handle = part.write(files, () -> false);
        assertEquals(
                List.of("change=1", "drop=1", "keep=1"),
                all(MemoryStateStore.restore(new RestorePoint("stage-0", 1, handle), "restored", files)));
        assertEquals(List.of("change=2", "new=2"), all(store));
    }

    @Test
    void aSnapshotWrittenToTheFileStoreRestoresTheSameEntries(@TempDir Path dir) throws Exception {
        FileSnapshotStore fileStore = new FileSnapshotStore(dir);
        KeyedState state = new KeyedState(store);
        ValueState<Long> count = state.valueState("count", Serde.LONG);
        MapState<String, String> map = state.mapState("map", Serde.STRING, Serde.STRING);
        for (int k = 0; k < 50; k++) {
            state.setCurrentKey(s("user-" + k));
            count.update((long) k);
            map.put("m" + (k % 7), "v" + k);
            state.timers("0").registerEventTime(k * 10L);
        }
        List<String> before = all(store);
        SnapshotPart part = store.snapshot(9);
        for (int k = 0; k < 50; k += 2) {
            state.setCurrentKey(s("user-" + k));
            count.clear();
            map.put("late", "x");
        }

        StateHandle handle = part.write(fileStore, () -> false);
        MemoryStateStore restored =
                MemoryStateStore.restore(new RestorePoint("stage-0", 1, handle), "restored", fileStore);

        assertEquals("memory", handle.backend());
        assertEquals(1, handle.files().size());
        assertTrue(
                handle.files().get(0).name().matches("stage-0/[0-9a-f]+/memory-9.bin"),
                handle.files().get(0).name());
        assertEquals(before, all(restored));
        KeyedState restoredState = new KeyedState(restored);
        restoredState.setCurrentKey(s("user-4"));
        assertEquals(4L, restoredState.valueState("count", Serde.LONG).value());
        assertEquals(
                50,
                restoredState
                        .takeDueTimers(TimerDomain.EVENT_TIME, Long.MAX_VALUE)
                        .size());
    }

    @Test
    void anEmptyStoreSnapshotsAndRestoresEmpty() throws Exception {
        StateHandle handle = store.snapshot(1).write(files, () -> false);

        assertEquals(
                List.of(), all(MemoryStateStore.restore(new RestorePoint("stage-0", 1, handle), "restored", files)));
    }

    @Test
    void theRestoredStoreIsIndependentOfTheSnapshot() throws Exception {
        store.put(s("a"), s("1"));
        StateHandle handle = store.snapshot(1).write(files, () -> false);
        MemoryStateStore restored = MemoryStateStore.restore(new RestorePoint("stage-0", 1, handle), "restored", files);

        restored.put(s("a"), s("2"));
        restored.delete(s("a"));

        assertEquals(
                List.of("a=1"),
                all(MemoryStateStore.restore(new RestorePoint("stage-0", 1, handle), "restored", files)));
        assertEquals(List.of("a=1"), all(store));
    }

    @Test
    void twoStoresOfOneTaskNeverWriteTheSameFileName() throws Exception {
        MemoryStateStore other = new MemoryStateStore("stage-0");
        StateHandle a = store.snapshot(3).write(files, () -> false);
        StateHandle b = other.snapshot(3).write(files, () -> false);

        assertNotEquals(a.files().get(0).name(), b.files().get(0).name());
    }

    @Test
    void aCancelledSnapshotWritesNothing() {
        store.put(s("a"), s("1"));
        SnapshotPart part = store.snapshot(1);

        assertThrows(CancellationException.class, () -> part.write(files, () -> true));
        assertEquals(0, files.writes());
    }

    @Test
    void aFailingWriteSurfacesItsIOException() {
        store.put(s("a"), s("1"));
        SnapshotPart part = store.snapshot(1);
        files.failWrites(new IOException("disk full"));

        IOException e = assertThrows(IOException.class, () -> part.write(files, () -> false));
        assertEquals("disk full", e.getMessage());
    }

    @Test
    void aFileOfAnotherFormatIsRefused() throws Exception {
        StoredFile junk = files.write("stage-0/junk.bin", new byte[] {0, 0, 0, 1, 0, 0, 0, 0});

        IOException e = assertThrows(
                IOException.class,
                () -> MemoryStateStore.restore(
                        new RestorePoint("stage-0", 1, new StateHandle("memory", List.of(junk))), "restored", files));
        assertTrue(e.getMessage().contains("format"), e.getMessage());
    }

    @Test
    void layersStayFewOverManyCheckpoints() throws Exception {
        KeyedState state = new KeyedState(store);
        ValueState<Long> count = state.valueState("count", Serde.LONG);
        Map<String, Long> model = new LinkedHashMap<>();
        int maxLayers = 0;
        for (long id = 1; id <= 100; id++) {
            for (int k = 0; k < 10; k++) {
                String key = "k" + ((id * 7 + k) % 23);
                state.setCurrentKey(s(key));
                if (k == 3) {
                    count.clear();
                    model.remove(key);
                } else {
                    count.update(id);
                    model.put(key, id);
                }
            }
            store.snapshot(id).write(files, () -> false);
            maxLayers = Math.max(maxLayers, store.layers());
        }

        assertTrue(maxLayers <= 3, "layers grew to " + maxLayers);
        assertEquals(model.size(), countEntries(store));
        for (Map.Entry<String, Long> e : model.entrySet()) {
            state.setCurrentKey(s(e.getKey()));
            assertEquals(e.getValue(), count.value(), e.getKey());
        }
    }

    @Test
    void layersStayFewWhenEachSnapshotIsWrittenAfterTheNextOneWasTaken() throws Exception {
        SnapshotPart previous = null;
        int maxLayers = 0;
        for (long id = 1; id <= 100; id++) {
            store.put(s("k" + (id % 13)), s("v" + id));
            store.delete(s("k" + ((id + 5) % 13)));
            SnapshotPart part = store.snapshot(id);
            if (previous != null) {
                previous.write(files, () -> false);
            }
            previous = part;
            maxLayers = Math.max(maxLayers, store.layers());
        }

        assertTrue(maxLayers <= 5, "layers grew to " + maxLayers);
    }

    @Test
    void compactionNeverChangesWhatIsRead() throws Exception {
        store.put(s("a"), s("1"));
        store.put(s("b"), s("1"));
        store.snapshot(1);
        store.delete(s("a"));
        SnapshotPart second = store.snapshot(2);
        store.put(s("c"), s("3"));
        second.write(files, () -> false); // offers a merged map of the two older layers
        List<String> before = all(store);

        store.snapshot(3); // applies it

        assertEquals(before, all(store));
        assertNull(store.get(s("a")));
        assertNotNull(store.get(s("c")));
    }

    private static int countEntries(StateStore store) {
        int n = 0;
        for (Iterator<Map.Entry<byte[], byte[]>> it = store.scan(new byte[0]); it.hasNext(); it.next()) {
            n++;
        }
        return n;
    }
}
