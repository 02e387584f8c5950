package io.weir.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The state contract on the RocksDB backend. */
class RocksDbStateStoreTest extends StateStoreContract {
    @Override
    StateBackend newBackend(Path root) throws IOException {
        // A small heap cache (about 3,900 entries of 100 bytes), so that tests reach RocksDB itself.
        return new RocksDbBackend(root, new RocksDbSettings(8 << 20, 4 << 20, 1 << 20));
    }

    /** The RocksDB store under the write-back cache. */
    static RocksDbStateStore rocks(StateStore store) {
        return (RocksDbStateStore) ((WriteBackCache) store).inner();
    }

    /** Prepares the next snapshot as a task does ahead of a barrier and waits for its flush. */
    static void prepareAndAwaitFlush(StateStore store) {
        store.prepareSnapshot();
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> rocks(store).property("rocksdb.num-immutable-mem-table") == 0);
    }

    /** As a task checkpoints: prepared ahead of the barrier, the preparation's flush done by then. */
    RestorePoint preparedCheckpoint(long id) throws IOException {
        prepareAndAwaitFlush(store);
        return checkpoint(id);
    }

    @Test
    void aSnapshotSamplesTheSizePropertiesMetricsReport() {
        assertEquals(Map.of(), store.sampledProperties(), "nothing sampled before the first snapshot");
        for (int i = 0; i < 1_000; i++) {
            store.put(("key-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
        }
        prepareAndAwaitFlush(store);
        for (int i = 0; i < 30_000; i++) { // more than the cache holds: most reach the memtable
            store.put(("later-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
        }
        store.snapshot(1);
        Map<String, Long> first = store.sampledProperties();
        assertEquals(3, first.size(), first.toString());
        assertTrue(first.get(RocksDbBackend.MEMTABLES) > 100_000, "the writes since the preparation: " + first);
        assertTrue(first.get(RocksDbBackend.SST_FILES) > 0, "the prepared flush's file: " + first);
        assertTrue(first.get(RocksDbBackend.LIVE_DATA) > 0, first.toString());
    }

    @Test
    void theCachedWritesFileHasANameVersionsBeforeItRefuse() {
        // The local-name rule of RocksDbRestore before the cached writes existed: a restore by such a
        // version must fail over, not restore a checkpoint without them.
        assertTrue(!RocksDbStateStore.CACHED_WRITES.matches("[A-Za-z0-9._-]+"), RocksDbStateStore.CACHED_WRITES);
        assertTrue(RocksDbRestore.LOCAL_NAME
                .matcher(RocksDbStateStore.CACHED_WRITES)
                .matches());
    }

    @Test
    void aSnapshotCapturesTheMemtableWithoutFlushingIt() throws IOException {
        RocksDbStateStore rocks = rocks(store);
        // ~2.2 MB: most pass the cache into the memtable, well below its 4 MiB write buffer.
        for (int i = 0; i < 20_000; i++) {
            store.put(("key-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
        }
        store.delete("key-7".getBytes(StandardCharsets.UTF_8));
        Map<String, String> expected = everything(store);
        StateHandle handle = store.snapshot(1).write(snapshots, () -> false);
        assertEquals(0, rocks.property(RocksDbBackend.SST_FILES), "no SST file: nothing was flushed");
        assertTrue(rocks.property("rocksdb.num-entries-active-mem-table") > 0, "the writes are still in the memtable");
        assertTrue(handle.files().stream().anyMatch(f -> f.name().endsWith(".log")), handle.toString());
        store.put("after".getBytes(StandardCharsets.UTF_8), new byte[1]); // not part of checkpoint 1
        store.delete("key-8".getBytes(StandardCharsets.UTF_8));

        try (StateBackend fresh = newBackend(dir.resolve("new-pod"));
                StateStore restored = fresh.open(TASK, "g9", new RestorePoint(TASK, 1, handle), snapshots)) {
            assertEquals(expected, everything(restored));
        }
    }

    @Test
    void anUploadTakesEachLogOnlyUpToItsLengthAtTheBarrier() throws IOException {
        RocksDbStateStore rocks = rocks(store);
        for (int i = 0; i < 20_000; i++) {
            store.put(("key-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
        }
        Map<String, String> expected = everything(store);
        SnapshotPart part = store.snapshot(1);
        // After the barrier, before the upload: writes into RocksDB itself, which the preparation
        // pushes into the log the capture linked (it rolls over only after that).
        for (int i = 0; i < 1_000; i++) {
            rocks.put(("after-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
        }
        rocks.delete("key-3".getBytes(StandardCharsets.UTF_8));
        prepareAndAwaitFlush(store);
        StateHandle handle = part.write(snapshots, () -> false);

        try (StateBackend fresh = newBackend(dir.resolve("new-pod"));
                StateStore restored = fresh.open(TASK, "g9", new RestorePoint(TASK, 1, handle), snapshots)) {
            assertEquals(expected, everything(restored));
        }
    }

    @Test
    void aSnapshotTakenWhileThePreparedFlushRunsHoldsTheRolledLogToo() throws IOException {
        RocksDbStateStore rocks = rocks(store);
        for (int i = 0; i < 20_000; i++) {
            store.put(("before-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
        }
        rocks.pauseBackgroundWork();
        StateHandle handle;
        try {
            store.prepareSnapshot(); // switches the memtable; its flush cannot run yet
            assertEquals(1, rocks.property("rocksdb.num-immutable-mem-table"), "the flush is pending");
            for (int i = 0; i < 20_000; i++) {
                store.put(("between-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
            }
            handle = store.snapshot(1).write(snapshots, () -> false);
            store.put("after".getBytes(StandardCharsets.UTF_8), new byte[1]);
        } finally {
            rocks.continueBackgroundWork();
        }
        assertEquals(
                2,
                handle.files().stream().filter(f -> f.name().endsWith(".log")).count(),
                "the rolled log and the live one: " + handle);
        try (StateBackend fresh = newBackend(dir.resolve("new-pod"));
                StateStore restored = fresh.open(TASK, "g9", new RestorePoint(TASK, 1, handle), snapshots)) {
            Map<String, String> all = everything(restored);
            assertEquals(40_000, all.size());
            assertTrue(all.containsKey("before-0") && all.containsKey("between-19999"));
        }
    }

    @Test
    void preparingASnapshotFlushesTheMemtableInTheBackground() throws IOException {
        RocksDbStateStore rocks = rocks(store);
        for (int i = 0; i < 30_000; i++) {
            store.put(("key-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
        }
        long sstFiles = rocks.property(RocksDbBackend.SST_FILES);
        assertTrue(rocks.property(RocksDbBackend.MEMTABLES) > 1_000_000, "the evicted writes are in the memtable");
        store.prepareSnapshot();
        // The cached writes went through and the memtable is on its way to an SST file.
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> rocks.property(RocksDbBackend.MEMTABLES) < 1_000_000
                        && rocks.property(RocksDbBackend.SST_FILES) > sstFiles);
        store.put("one more".getBytes(StandardCharsets.UTF_8), new byte[100]);
        store.snapshot(1);
        long atBarrier = store.sampledProperties().get(RocksDbBackend.MEMTABLES);
        assertTrue(atBarrier < 1_000_000, "the barrier found only the write after the preparation: " + atBarrier);
    }

    @Test
    void aRestoreReportsWhatItReusedLocallyAndWhatItDownloaded() throws IOException {
        assertEquals(RestoreSizes.NONE, store.restoreSizes(), "started empty");
        for (int i = 0; i < 1_000; i++) {
            store.put(("key-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
        }
        RestorePoint point = checkpoint(1);
        long total = point.handle().files().stream().mapToLong(StoredFile::size).sum();

        reopen(point);
        RestoreSizes local = store.restoreSizes();
        assertTrue(local.localBytes() > 0, local.toString());
        assertEquals(total, local.localBytes() + local.downloadedBytes(), local.toString());

        try (StateBackend fresh = newBackend(dir.resolve("new-pod"));
                StateStore restored = fresh.open(TASK, "g9", point, snapshots)) {
            assertEquals(new RestoreSizes(0, total), restored.restoreSizes());
        }
    }

    @Test
    void aStandbyCopyMakesATakeoverRestoreFromLocalFilesAndFollowsOnlyWhatCheckpointsAdd() throws IOException {
        for (int i = 0; i < 20_000; i++) {
            store.put(("key-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
        }
        RestorePoint first = preparedCheckpoint(1);
        long firstTotal = sizeOf(first);
        try (RocksDbBackend follower = (RocksDbBackend) newBackend(dir.resolve("other-pod"))) {
            assertEquals(
                    new RestoreSizes(0, firstTotal), follower.follow(first, snapshots), "a first copy downloads all");
            assertEquals(new RestoreSizes(firstTotal, 0), follower.follow(first, snapshots), "then nothing");

            for (int i = 0; i < 2_000; i++) {
                store.put(("more-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
            }
            RestorePoint second = preparedCheckpoint(2);
            RestoreSizes followed = follower.follow(second, snapshots);
            assertEquals(sizeOf(second), followed.localBytes() + followed.downloadedBytes(), followed.toString());
            assertTrue(followed.localBytes() > 0, "the first checkpoint's SST files are kept: " + followed);
            assertTrue(followed.downloadedBytes() < sizeOf(second) / 2, "only what it added: " + followed);

            // The takeover: the task opens from its latest checkpoint without downloading a byte.
            try (StateStore taken = follower.open(TASK, "g7", second, snapshots)) {
                assertEquals(new RestoreSizes(sizeOf(second), 0), taken.restoreSizes());
                assertEquals(everything(store), everything(taken));
                assertEquals(RestoreSizes.NONE, follower.follow(second, snapshots), "an open task is not followed");
            }
        }
    }

    @Test
    void anUnfollowedTaskLosesItsCopyAndItsRestoreDownloadsAgain() throws IOException {
        for (int i = 0; i < 1_000; i++) {
            store.put(("key-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
        }
        RestorePoint point = checkpoint(1);
        try (RocksDbBackend follower = (RocksDbBackend) newBackend(dir.resolve("other-pod"))) {
            follower.follow(point, snapshots);
            follower.unfollow(java.util.Set.of(TASK));
            try (StateStore taken = follower.open(TASK, "g7", point, snapshots)) {
                assertEquals(new RestoreSizes(0, sizeOf(point)), taken.restoreSizes());
            }
        }
    }

    private static long sizeOf(RestorePoint point) {
        return point.handle().files().stream().mapToLong(StoredFile::size).sum();
    }

    @Test
    void theSharedBlockCacheCountsItsHitsAndMisses() throws IOException {
        long heapCache = 1 << 20;
        try (RocksDbBackend rocks =
                        new RocksDbBackend(dir.resolve("cache"), new RocksDbSettings(8 << 20, 4 << 20, heapCache));
                StateStore s = rocks.open(TASK, "g1", null, snapshots)) {
            RocksDbBackend.BlockCacheCounts before = rocks.blockCache().orElseThrow();
            assertEquals(0, before.hits() + before.misses(), before.toString());
            // More keys than the write-back cache keeps on the heap, flushed to an SST file, then read
            // back: the reads that reach RocksDB look up its blocks in the block cache.
            int keys = (int) (3 * heapCache / WriteBackCache.cost(new byte[10], new byte[100]));
            for (int i = 0; i < keys; i++) {
                s.put(("key-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
            }
            prepareAndAwaitFlush(s);
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < keys; i++) {
                    s.get(("key-" + i).getBytes(StandardCharsets.UTF_8));
                }
            }
            RocksDbBackend.BlockCacheCounts counts = rocks.blockCache().orElseThrow();
            assertTrue(counts.misses() > 0, counts.toString());
            assertTrue(counts.hits() > counts.misses(), "the second round reads cached blocks: " + counts);
            assertTrue(counts.usageBytes() > 0, counts.toString());
            s.close();
            rocks.close();
            assertTrue(rocks.blockCache().isEmpty(), "nothing is read from a closed backend");
        }
    }
}
