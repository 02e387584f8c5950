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

    @Test
    void aSnapshotSamplesTheSizePropertiesMetricsReport() {
        assertEquals(Map.of(), store.sampledProperties(), "nothing sampled before the first snapshot");
        for (int i = 0; i < 1_000; i++) {
            store.put(("key-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
        }
        store.snapshot(1);
        Map<String, Long> first = store.sampledProperties();
        assertEquals(3, first.size(), first.toString());
        assertTrue(first.get(RocksDbBackend.MEMTABLES) > 100_000, "sampled before the flush: " + first);
        assertTrue(first.get(RocksDbBackend.SST_FILES) > 0, "sampled after the flush: " + first);
        assertTrue(first.get(RocksDbBackend.LIVE_DATA) > 0, "sampled after the flush: " + first);
    }

    @Test
    void preparingASnapshotFlushesTheMemtableInTheBackground() throws IOException {
        RocksDbStateStore rocks = (RocksDbStateStore) ((WriteBackCache) store).inner();
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
        RestorePoint first = checkpoint(1);
        long firstTotal = sizeOf(first);
        try (RocksDbBackend follower = (RocksDbBackend) newBackend(dir.resolve("other-pod"))) {
            assertEquals(
                    new RestoreSizes(0, firstTotal), follower.follow(first, snapshots), "a first copy downloads all");
            assertEquals(new RestoreSizes(firstTotal, 0), follower.follow(first, snapshots), "then nothing");

            for (int i = 0; i < 2_000; i++) {
                store.put(("more-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
            }
            RestorePoint second = checkpoint(2);
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
            s.snapshot(1);
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
