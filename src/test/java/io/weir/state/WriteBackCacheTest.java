package io.weir.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WriteBackCacheTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The RocksDB store of a task the backend opens, to put a cache of the test's own in front of. */
    private RocksDbStateStore rocksOf(RocksDbBackend backend) throws Exception {
        StateStore opened = backend.open("t-0", "g", null, new FileSnapshotStore(dir.resolve("snapshots")));
        return (RocksDbStateStore) ((WriteBackCache) opened).inner();
    }

    private static List<String> keys(Iterator<Map.Entry<byte[], byte[]>> it) {
        List<String> out = new ArrayList<>();
        it.forEachRemaining(e -> out.add(new String(e.getKey(), StandardCharsets.UTF_8) + "="
                + new String(e.getValue(), StandardCharsets.UTF_8)));
        return out;
    }

    @Test
    void evictedDirtyEntriesAndDeletesReachTheStoreAndScansSeeEverything() throws Exception {
        try (RocksDbBackend backend = new RocksDbBackend(dir, new RocksDbSettings(8 << 20, 4 << 20))) {
            // Reach past the backend's cache to one of two entries, so eviction happens all the time.
            RocksDbStateStore rocks = rocksOf(backend);
            WriteBackCache cache = new WriteBackCache(rocks, () -> 2 * WriteBackCache.cost(b("a0"), b("v0")));
            for (int i = 0; i < 10; i++) {
                cache.put(b("a" + i), b("v" + i));
            }
            cache.delete(b("a3"));
            cache.put(b("a4"), b("changed"));
            assertNull(cache.get(b("a3")));
            assertArrayEquals(b("changed"), cache.get(b("a4")));
            assertArrayEquals(b("v0"), cache.get(b("a0")), "an evicted entry is read back from the store");
            assertEquals(
                    List.of("a0=v0", "a1=v1", "a2=v2", "a4=changed", "a5=v5", "a6=v6", "a7=v7", "a8=v8", "a9=v9"),
                    keys(cache.scan(b("a"))));
            byte[] read = cache.get(b("a5"));
            read[0] = 'X';
            assertArrayEquals(b("v5"), cache.get(b("a5")), "a caller changing what it read changes nothing");
            cache.prepareSnapshot(); // writes every dirty entry through
            assertEquals(9, keys(rocks.scan(b("a"))).size());
        }
    }

    @Test
    void theOpenTasksShareTheBudgetAndACacheShrinksToItsShareWhenAnotherTaskOpens() throws Exception {
        long budget = 4L << 20;
        try (RocksDbBackend backend = new RocksDbBackend(dir, new RocksDbSettings(8 << 20, 4 << 20, budget))) {
            WriteBackCache first =
                    (WriteBackCache) backend.open("t-0", "g", null, new FileSnapshotStore(dir.resolve("snapshots")));
            byte[] value = new byte[1000];
            for (int i = 0; i < 10_000; i++) {
                first.put(b("k" + i), value);
            }
            assertTrue(first.bytes() <= budget, first.bytes() + " bytes cached");
            assertTrue(first.bytes() > budget / 2, "alone, a task has the whole budget: " + first.bytes());
            backend.open("t-1", "g", null, new FileSnapshotStore(dir.resolve("snapshots")));
            for (int i = 0; i < 1_000; i++) {
                first.get(b("k" + i)); // new entries: the cache looks at its share again
            }
            assertTrue(first.bytes() <= budget / 2, "two tasks open: " + first.bytes() + " bytes cached");
            assertArrayEquals(value, first.get(b("k9999")), "what was evicted reads back from RocksDB");
        }
    }

    @Test
    void anEntryEvictedAsItIsWrittenLeavesNoStaleHandleBehind() throws Exception {
        try (RocksDbBackend backend = new RocksDbBackend(dir, new RocksDbSettings(8 << 20, 4 << 20))) {
            RocksDbStateStore rocks = rocksOf(backend);
            // A budget smaller than one entry: each entry goes as soon as it is in.
            WriteBackCache cache = new WriteBackCache(rocks, () -> 1);
            cache.putPoint(b("a"), b("v1"));
            cache.putPoint(b("a"), b("v2")); // the key looked up last, evicted meanwhile
            assertNull(cache.get(b("b")));
            assertArrayEquals(b("v2"), cache.get(b("a")));
            assertArrayEquals(b("v2"), rocks.get(b("a")), "written through when evicted");
            cache.deletePoint(b("a"));
            assertNull(cache.get(b("b")));
            assertNull(cache.get(b("a")));
        }
    }

    @Test
    void pointKeysReachTheStoreAtTheSnapshotAndScansStillSeeTheOthers() throws Exception {
        try (RocksDbBackend backend = new RocksDbBackend(dir, new RocksDbSettings(8 << 20, 4 << 20))) {
            RocksDbStateStore rocks = rocksOf(backend);
            WriteBackCache cache = new WriteBackCache(rocks, () -> 1L << 20);
            for (int i = 0; i < 100; i++) {
                cache.putPoint(b("p" + i), b("v" + i));
                cache.put(b("s" + i), b("w" + i));
            }
            cache.deletePoint(b("p7"));
            assertEquals(100, keys(cache.scan(b("s"))).size(), "a scan writes the dirty keys it covers through");
            assertEquals(100, keys(rocks.scan(b("s"))).size());
            assertEquals(0, keys(rocks.scan(b("p"))).size(), "point keys stay cached until the snapshot");
            cache.prepareSnapshot();
            assertEquals(99, keys(rocks.scan(b("p"))).size());
            assertNull(rocks.get(b("p7")));
            assertArrayEquals(b("v42"), rocks.get(b("p42")));
        }
    }

    @Test
    void evictedPointKeysLeaveTheDirtyListSoItNeverOutgrowsTheCache() throws Exception {
        try (RocksDbBackend backend = new RocksDbBackend(dir, new RocksDbSettings(8 << 20, 4 << 20))) {
            RocksDbStateStore rocks = rocksOf(backend);
            WriteBackCache cache = new WriteBackCache(rocks, () -> 10 * WriteBackCache.cost(b("k0000"), b("v0000")));
            for (int i = 0; i < 10_000; i++) { // no snapshot: a barrier late in coming
                cache.putPoint(b(String.format("k%04d", i)), b(String.format("v%04d", i)));
            }
            assertTrue(cache.cachedEntries() <= 10, cache.cachedEntries() + " cached");
            assertTrue(cache.listedDirtyPoints() <= cache.cachedEntries(), cache.listedDirtyPoints() + " listed");
            assertArrayEquals(b("v0042"), rocks.get(b("k0042")), "evicted ones were written through");
            cache.prepareSnapshot();
            assertEquals(10_000, keys(rocks.scan(b("k"))).size());
        }
    }

    @Test
    void aSnapshotCarriesTheDirtyEntriesAlongInsteadOfWritingThemIntoRocksDb() throws Exception {
        FileSnapshotStore snapshots = new FileSnapshotStore(dir.resolve("snapshots"));
        try (RocksDbBackend backend = new RocksDbBackend(dir.resolve("a"), new RocksDbSettings(8 << 20, 4 << 20));
                RocksDbBackend other = new RocksDbBackend(dir.resolve("b"), new RocksDbSettings(8 << 20, 4 << 20))) {
            RocksDbStateStore rocks = rocksOf(backend);
            WriteBackCache cache = new WriteBackCache(rocks, () -> 1 << 20);
            cache.put(b("gone"), b("x"));
            cache.prepareSnapshot();
            cache.putPoint(b("p1"), b("v1"));
            cache.put(b("s1"), b("v2"));
            cache.delete(b("gone"));
            StateHandle handle = cache.snapshot(1).write(snapshots, () -> false);
            assertNull(rocks.get(b("p1")), "not written into RocksDB at the barrier");
            assertArrayEquals(b("x"), rocks.get(b("gone")));
            assertTrue(
                    handle.files().stream().anyMatch(f -> f.name().endsWith("/" + RocksDbStateStore.CACHED_WRITES)),
                    handle.toString());
            cache.put(b("s2"), b("after the barrier"));

            try (StateStore restored = other.open("t-0", "g2", new RestorePoint("t-0", 1, handle), snapshots)) {
                assertEquals(List.of("p1=v1", "s1=v2"), keys(restored.scan(new byte[0])));
            }
            Path db = dir.resolve("b").resolve("t-0").resolve("db");
            assertTrue(
                    !java.nio.file.Files.exists(db.resolve(RocksDbStateStore.CACHED_WRITES)),
                    "written into the restored database, then removed");
            cache.prepareSnapshot();
            assertArrayEquals(b("v1"), rocks.get(b("p1")), "still dirty after the barrier: the preparation writes it");
        }
    }

    @Test
    void aWriteAfterTheBarrierLeavesTheValueTheSnapshotCarriesAsItWas() throws Exception {
        FileSnapshotStore snapshots = new FileSnapshotStore(dir.resolve("snapshots"));
        try (RocksDbBackend backend = new RocksDbBackend(dir.resolve("a"), new RocksDbSettings(8 << 20, 4 << 20));
                RocksDbBackend other = new RocksDbBackend(dir.resolve("b"), new RocksDbSettings(8 << 20, 4 << 20))) {
            RocksDbStateStore rocks = rocksOf(backend);
            WriteBackCache cache = new WriteBackCache(rocks, () -> 1 << 20);
            byte[] caller = b("total=0001");
            cache.putPoint(b("k"), caller);
            caller[9] = '9'; // the cache holds its own copy
            cache.putPoint(b("k"), b("total=0002")); // same length: rewritten where it is
            assertArrayEquals(b("total=0002"), cache.get(b("k")));
            SnapshotPart part = cache.snapshot(1); // holds the cached array until written out
            cache.putPoint(b("k"), b("total=0003")); // same length, after the barrier
            cache.putPoint(b("k"), b("total=0004"));
            StateHandle handle = part.write(snapshots, () -> false);
            try (StateStore restored = other.open("t-0", "g2", new RestorePoint("t-0", 1, handle), snapshots)) {
                assertArrayEquals(b("total=0002"), restored.get(b("k")), "the value at the barrier");
            }
            assertArrayEquals(b("total=0004"), cache.get(b("k")));
            cache.prepareSnapshot();
            assertArrayEquals(b("total=0004"), rocks.get(b("k")));
        }
    }

    @Test
    void aBackendSetToWriteThroughCarriesNothingAndOneSetToCarryDoes() throws Exception {
        FileSnapshotStore snapshots = new FileSnapshotStore(dir.resolve("snapshots"));
        for (boolean carry : new boolean[] {false, true}) {
            Path root = dir.resolve("carry-" + carry);
            try (RocksDbBackend backend =
                    new RocksDbBackend(root, new RocksDbSettings(8 << 20, 4 << 20, 8 << 20, carry))) {
                StateStore store = backend.open("t-0", "g", null, snapshots);
                store.putPoint(b("p"), b("v"));
                StateHandle handle = store.snapshot(1).write(snapshots, () -> false);
                RocksDbStateStore rocks = (RocksDbStateStore) ((WriteBackCache) store).inner();
                boolean file =
                        handle.files().stream().anyMatch(f -> f.name().endsWith("/" + RocksDbStateStore.CACHED_WRITES));
                assertEquals(carry, file, handle.toString());
                assertEquals(carry, rocks.get(b("p")) == null, "in RocksDB at the barrier unless carried");
                try (RocksDbBackend other =
                                new RocksDbBackend(root.resolve("other"), new RocksDbSettings(8 << 20, 4 << 20));
                        StateStore restored = other.open("t-0", "g2", new RestorePoint("t-0", 1, handle), snapshots)) {
                    assertArrayEquals(b("v"), restored.get(b("p")));
                }
                store.close();
            }
        }
    }

    @Test
    void evictionsThatShiftEntriesAcrossTheEndOfTheTableLoseNothing() throws Exception {
        // Keys whose home slots lie around the end of the smallest table (1,024 slots): removing
        // one moves the entries after it back, across the wrap, and each read must still find them.
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; keys.size() < 12; i++) {
            byte[] k = b("w" + i);
            int home = CacheTable.hash(k) & 1023;
            if (home >= 1020 || home <= 2) {
                keys.add(k);
            }
        }
        try (RocksDbBackend backend = new RocksDbBackend(dir, new RocksDbSettings(8 << 20, 4 << 20))) {
            RocksDbStateStore rocks = rocksOf(backend);
            WriteBackCache cache = new WriteBackCache(rocks, () -> 6 * WriteBackCache.cost(b("w0000"), b("v0000")));
            Map<Integer, String> model = new java.util.HashMap<>();
            java.util.Random random = new java.util.Random(42);
            for (int round = 0; round < 2_000; round++) {
                int k = random.nextInt(keys.size());
                if (random.nextBoolean()) {
                    String v = String.format("v%04d", round);
                    cache.put(keys.get(k), b(v));
                    model.put(k, v);
                } else {
                    byte[] read = cache.get(keys.get(k));
                    String expected = model.get(k);
                    assertEquals(
                            expected, read == null ? null : new String(read, StandardCharsets.UTF_8), "round " + round);
                }
                assertTrue(cache.cachedEntries() <= 7, "round " + round + ": " + cache.cachedEntries());
            }
            cache.prepareSnapshot();
            for (Map.Entry<Integer, String> e : model.entrySet()) {
                assertArrayEquals(b(e.getValue()), rocks.get(keys.get(e.getKey())));
            }
            assertEquals(model.size(), keys(rocks.scan(b("w"))).size());
        }
    }

    @Test
    void dirtyEntriesBeyondTheLimitAreWrittenThroughAtTheSnapshot() throws Exception {
        FileSnapshotStore snapshots = new FileSnapshotStore(dir.resolve("snapshots"));
        try (RocksDbBackend backend = new RocksDbBackend(dir, new RocksDbSettings(8 << 20, 4 << 20))) {
            RocksDbStateStore rocks = rocksOf(backend);
            WriteBackCache cache = new WriteBackCache(rocks, () -> 1 << 20, 1_000);
            for (int i = 0; i < 100; i++) {
                cache.putPoint(b("p" + i), b("value " + i)); // ~1,400 bytes serialized
            }
            StateHandle handle = cache.snapshot(1).write(snapshots, () -> false);
            assertArrayEquals(b("value 42"), rocks.get(b("p42")));
            assertTrue(
                    handle.files().stream().noneMatch(f -> f.name().endsWith(RocksDbStateStore.CACHED_WRITES)),
                    handle.toString());
        }
    }

    /** The bytes as they are, claiming to copy out: handed the cached array itself. */
    private static final Serde<byte[]> COPYING = new Serde<>() {
        @Override
        public byte[] serialize(byte[] value) {
            return Serde.BYTES.serialize(value);
        }

        @Override
        public byte[] deserialize(byte[] bytes) {
            return Serde.BYTES.deserialize(bytes);
        }

        @Override
        public boolean copiesOut() {
            return true;
        }
    };

    @Test
    void aReadHandsTheCachedArrayOnlyToASerdeThatCopiesOut() throws Exception {
        try (RocksDbBackend backend = new RocksDbBackend(dir, new RocksDbSettings(8 << 20, 4 << 20))) {
            RocksDbStateStore rocks = rocksOf(backend);
            rocks.put(b("stored"), b("s1"));
            WriteBackCache cache = new WriteBackCache(rocks, () -> 1 << 20);
            cache.putPoint(b("cached"), b("c1"));
            for (String key : new String[] {"cached", "stored"}) {
                byte[] kept = cache.read(b(key), Serde.BYTES);
                kept[1] = '9'; // the caller's own copy: the state must not change
                assertArrayEquals(b(key.charAt(0) + "1"), cache.get(b(key)), key);
                assertArrayEquals(b(key.charAt(0) + "1"), cache.read(b(key), COPYING), key);
            }
            byte[] first = cache.read(b("cached"), COPYING);
            assertSame(first, cache.read(b("cached"), COPYING), "a serde that copies out reads the cached array");
            assertNull(cache.read(b("none"), COPYING));
            cache.deletePoint(b("cached"));
            assertNull(cache.read(b("cached"), COPYING));
        }
    }
}
