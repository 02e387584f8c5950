package io.weir.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The write-back cache in front of RocksDB against a reference {@link TreeMap}: random writes and
 * deletes of point keys (a value state's, {@link StateStore#putPoint}) and of keys scans cover,
 * reads, prefix scans and snapshots, under a budget of a few entries so that entries are evicted all
 * the time. Every read and scan answers as the model does; after each preparation RocksDB itself
 * holds exactly the model, and each snapshot (RocksDB's files plus the writes the cache carries
 * along) restores to exactly the model: no write is lost, none is written twice with a stale value.
 */
class WriteBackCacheProperties {
    private static final HexFormat HEX = HexFormat.of();

    sealed interface Op {}

    /**
     * Writes {@code value} (null: deletes) under key {@code key}: a point key ({@code point}) or one
     * scans cover; a point key written through {@code putPoint} or, as a key of another kind may be
     * (a task's entries), through plain {@code put} ({@code asPoint} false).
     */
    record Write(boolean point, boolean asPoint, int key, byte[] value) implements Op {
        @Override
        public String toString() {
            return (point ? asPoint ? "point " : "point via put " : "")
                    + (value == null ? "delete " + key : "put " + key + "=" + HEX.formatHex(value));
        }
    }

    record Read(boolean point, int key) implements Op {}

    record Scan(int prefix) implements Op {}

    record Snapshot(boolean prepareOnly) implements Op {}

    @Property(tries = 150)
    void readsScansAndSnapshotsMatchTheModel(
            @ForAll("ops") List<Op> ops, @ForAll @IntRange(min = 1, max = 6) int budgetEntries) throws IOException {
        Path dir = Files.createTempDirectory("weir-cache-props");
        FileSnapshotStore snapshots = new FileSnapshotStore(dir.resolve("snapshots"));
        try (RocksDbBackend backend = new RocksDbBackend(dir.resolve("live"), new RocksDbSettings(8 << 20, 4 << 20));
                RocksDbBackend other =
                        new RocksDbBackend(dir.resolve("other"), new RocksDbSettings(8 << 20, 4 << 20))) {
            StateStore opened = backend.open("t-0", "g", null, snapshots);
            RocksDbStateStore rocks = (RocksDbStateStore) ((WriteBackCache) opened).inner();
            long budget = budgetEntries * WriteBackCache.cost(key(false, 0), new byte[2]);
            WriteBackCache cache = new WriteBackCache(rocks, () -> budget);
            TreeMap<String, byte[]> model = new TreeMap<>();
            long checkpoint = 0;
            for (Op op : ops) {
                if (op instanceof Write w) {
                    byte[] k = key(w.point(), w.key());
                    if (w.value() == null) {
                        if (w.point() && w.asPoint()) {
                            cache.deletePoint(k);
                        } else {
                            cache.delete(k);
                        }
                        model.remove(HEX.formatHex(k));
                    } else {
                        byte[] v = w.value().clone();
                        if (w.point() && w.asPoint()) {
                            cache.putPoint(k, v);
                        } else {
                            cache.put(k, v);
                        }
                        v[0] ^= 1; // the cache holds a copy
                        model.put(HEX.formatHex(k), w.value());
                    }
                } else if (op instanceof Read r) {
                    byte[] k = key(r.point(), r.key());
                    byte[] expected = model.get(HEX.formatHex(k));
                    byte[] got = cache.get(k);
                    assertArrayEquals(expected, got, () -> "read " + HEX.formatHex(k));
                } else if (op instanceof Scan s) {
                    byte[] prefix = {'s', (byte) s.prefix()};
                    assertEquals(
                            render(model.subMap(
                                    HEX.formatHex(prefix), HEX.formatHex(new byte[] {'s', (byte) (s.prefix() + 1)}))),
                            render(cache.scan(prefix)),
                            "scan " + s.prefix());
                } else if (op instanceof Snapshot snap) {
                    if (snap.prepareOnly()) {
                        cache.prepareSnapshot();
                        assertEquals(render(model), render(rocks.scan(new byte[0])), "RocksDB after the preparation");
                        assertEquals(0, cache.listedDirtyPoints(), "nothing dirty after a preparation");
                    } else {
                        assertEquals(render(model), restored(cache, ++checkpoint, snapshots, other), "checkpoint");
                    }
                }
                assertTrue(cache.bytes() <= budget, () -> cache.bytes() + " bytes cached, budget " + budget);
                assertTrue(
                        cache.listedDirtyPoints() <= cache.cachedEntries(),
                        () -> cache.listedDirtyPoints() + " dirty points listed, " + cache.cachedEntries() + " cached");
            }
            assertEquals(render(model), restored(cache, ++checkpoint, snapshots, other), "the last checkpoint");
        } finally {
            LocalFiles.deleteTree(dir);
        }
    }

    /** Snapshots the cache as checkpoint {@code id} and renders what a restore of it holds. */
    private static List<String> restored(WriteBackCache cache, long id, SnapshotStore snapshots, StateBackend other)
            throws IOException {
        StateHandle handle = cache.snapshot(id).write(snapshots, () -> false);
        try (StateStore copy = other.open("t-0", "r" + id, new RestorePoint("t-0", id, handle), snapshots)) {
            return render(copy.scan(new byte[0]));
        }
    }

    /** Point keys 'p' + one byte, keys scans cover 's' + two bytes (scanned by their first). */
    private static byte[] key(boolean point, int key) {
        return point ? new byte[] {'p', (byte) key} : new byte[] {'s', (byte) (key / 4), (byte) (key % 4)};
    }

    private static List<String> render(Map<String, byte[]> map) {
        List<String> out = new ArrayList<>();
        map.forEach((k, v) -> out.add(k + "=" + HEX.formatHex(v)));
        return out;
    }

    private static List<String> render(Iterator<Map.Entry<byte[], byte[]>> it) {
        List<String> out = new ArrayList<>();
        it.forEachRemaining(e -> out.add(HEX.formatHex(e.getKey()) + "=" + HEX.formatHex(e.getValue())));
        return out;
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Integer> keys = Arbitraries.integers().between(0, 7);
        Arbitrary<byte[]> values =
                Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(3);
        Arbitrary<Op> write = Combinators.combine(
                        Arbitraries.of(true, false), Arbitraries.of(true, true, false), keys, values.injectNull(0.2))
                .as(Write::new);
        Arbitrary<Op> read =
                Combinators.combine(Arbitraries.of(true, false), keys).as(Read::new);
        Arbitrary<Op> scan = Arbitraries.integers().between(0, 2).map(Scan::new);
        Arbitrary<Op> snapshot = Arbitraries.of(true, false).map(Snapshot::new);
        return Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(6, write),
                        net.jqwik.api.Tuple.of(4, read),
                        net.jqwik.api.Tuple.of(1, scan),
                        net.jqwik.api.Tuple.of(1, snapshot))
                .list()
                .ofMaxSize(80);
    }
}
