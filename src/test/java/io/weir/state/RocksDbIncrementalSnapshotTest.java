package io.weir.state;

import static io.weir.state.StateStoreContract.bytes;
import static io.weir.state.StateStoreContract.everything;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.fixtures.CountingSnapshotStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Incremental checkpoints and local recovery of the RocksDB backend. */
class RocksDbIncrementalSnapshotTest {
    private static final String TASK = "job-3";
    private static final RocksDbSettings SMALL = new RocksDbSettings(8 << 20, 4 << 20);

    @TempDir
    Path dir;

    private CountingSnapshotStore snapshots;
    private RocksDbBackend backend;
    private StateStore store;
    private int generation;

    @BeforeEach
    void open() throws IOException {
        snapshots = new CountingSnapshotStore(new FileSnapshotStore(dir.resolve("snapshots")));
        backend = new RocksDbBackend(dir.resolve("state"), SMALL);
        store = backend.open(TASK, "g" + generation++, null, snapshots);
    }

    @AfterEach
    void close() {
        store.close();
        backend.close();
    }

    private void putKeys(String prefix, int n) {
        for (int i = 0; i < n; i++) {
            store.put(bytes(prefix + i), bytes("value of " + prefix + i));
        }
    }

    /** As a task checkpoints: prepared ahead of the barrier, the preparation's flush done by then. */
    private StateHandle checkpoint(long id, boolean complete) throws IOException {
        RocksDbStateStoreTest.prepareAndAwaitFlush(store);
        StateHandle h = store.snapshot(id).write(snapshots, () -> false);
        if (complete) {
            store.checkpointCompleted(id, h);
        }
        return h;
    }

    private static Set<String> ssts(StateHandle h) {
        Set<String> names = new HashSet<>();
        h.files().stream().filter(f -> f.name().endsWith(".sst")).forEach(f -> names.add(f.name()));
        return names;
    }

    private static List<StoredFile> uploadedBy(StateHandle h, long id) {
        return h.files().stream().filter(f -> f.name().contains("/" + id + "/")).toList();
    }

    @Test
    void aSecondCheckpointUploadsOnlyTheSstFilesTheFirstDidNotStore() throws IOException {
        putKeys("a", 2000);
        StateHandle first = checkpoint(1, true);
        putKeys("b", 10);
        StateHandle second = checkpoint(2, true);

        assertTrue(ssts(second).containsAll(ssts(first)), "the first checkpoint's SST files are referenced again");
        List<StoredFile> newSsts = uploadedBy(second, 2).stream()
                .filter(f -> f.name().endsWith(".sst"))
                .toList();
        assertEquals(1, newSsts.size(), "one flush, one new SST: " + newSsts);
        assertTrue(
                uploadedBy(second, 2).stream().anyMatch(f -> f.name().contains("MANIFEST")),
                "metadata is uploaded every time");
        long sharedBytes = second.files().stream()
                .filter(f -> !f.name().contains("/2/"))
                .mapToLong(StoredFile::size)
                .sum();
        assertTrue(sharedBytes > newSsts.get(0).size(), "the shared part is the larger part");
    }

    @Test
    void filesOfACheckpointThatNeverCompletedAreUploadedAgain() throws IOException {
        putKeys("a", 500);
        StateHandle aborted = checkpoint(1, false);
        putKeys("b", 10);
        StateHandle next = checkpoint(2, true);

        Set<String> both = new HashSet<>(ssts(aborted));
        both.retainAll(ssts(next));
        assertTrue(both.isEmpty(), "nothing of checkpoint 1 is referenced: " + both);
    }

    @Test
    void theRestoredCheckpointsFilesAreNotUploadedAgain() throws IOException {
        putKeys("a", 1000);
        StateHandle first = checkpoint(1, true);
        try (RocksDbBackend newPod = new RocksDbBackend(dir.resolve("new-pod"), SMALL);
                StateStore restored = newPod.open(TASK, "g9", new RestorePoint(TASK, 1, first), snapshots)) {
            restored.put(bytes("after-restore"), bytes("1"));
            RocksDbStateStoreTest.prepareAndAwaitFlush(restored);
            StateHandle second = restored.snapshot(2).write(snapshots, () -> false);
            assertTrue(ssts(second).containsAll(ssts(first)));
            assertEquals(
                    1,
                    uploadedBy(second, 2).stream()
                            .filter(f -> f.name().endsWith(".sst"))
                            .count());
        }
    }

    @Test
    void localRecoveryReusesTheFilesOnDiskAndDownloadsNothing() throws IOException {
        putKeys("a", 1000);
        checkpoint(1, true);
        putKeys("b", 1000);
        StateHandle second = checkpoint(2, true);
        Map<String, String> expected = everything(store);
        putKeys("c", 100); // after the checkpoint: must not be in the restored state
        RocksDbStateStoreTest.prepareAndAwaitFlush(store); // in the live database's files, then
        store.close();

        store = backend.open(TASK, "g" + generation++, new RestorePoint(TASK, 2, second), snapshots);
        assertEquals(0, snapshots.downloads.get());
        assertEquals(expected, everything(store));
    }

    @Test
    void localRecoveryReusesTheCapturedLogsAndCachedWritesToo() throws IOException {
        putKeys("a", 1000);
        checkpoint(1, true);
        // No preparation before checkpoint 2: writes that reached RocksDB are only in its log, and
        // the cache's dirty entries go along as the cached-writes file.
        RocksDbStateStore rocks = RocksDbStateStoreTest.rocks(store);
        for (int i = 0; i < 200; i++) {
            rocks.put(bytes("logged" + i), bytes("value of logged" + i));
        }
        putKeys("b", 300);
        StateHandle second = store.snapshot(2).write(snapshots, () -> false);
        store.checkpointCompleted(2, second);
        assertTrue(second.files().stream().anyMatch(f -> f.name().endsWith(".log")), second.toString());
        assertTrue(
                second.files().stream().anyMatch(f -> f.name().endsWith(RocksDbStateStore.CACHED_WRITES)),
                second.toString());
        Map<String, String> expected = everything(store);
        putKeys("c", 100);
        RocksDbStateStoreTest.prepareAndAwaitFlush(store);
        store.close();

        store = backend.open(TASK, "g" + generation++, new RestorePoint(TASK, 2, second), snapshots);
        assertEquals(0, snapshots.downloads.get(), "the log and the cached writes were found on disk");
        assertEquals(expected, everything(store));
    }

    @Test
    void localRecoveryDownloadsOnlyTheFilesThatDoNotMatch() throws IOException {
        putKeys("a", 1000);
        StateHandle first = checkpoint(1, true);
        store.close();
        String sst = ssts(first).iterator().next();
        Path local = dir.resolve("state").resolve(TASK).resolve("db").resolve(sst.substring(sst.lastIndexOf('/') + 1));
        // The database and the kept checkpoint directory share the file (hard links): damage both.
        byte[] content = Files.readAllBytes(local);
        content[content.length / 3] ^= 1;
        Files.write(local, content);

        store = backend.open(TASK, "g" + generation++, new RestorePoint(TASK, 1, first), snapshots);
        assertEquals(1, snapshots.downloads.get());
        assertEquals(1000, everything(store).size());
    }

    @Test
    void aCompletedCheckpointRemovesTheLocalDirectoriesOfOlderOnes() throws IOException {
        putKeys("a", 10);
        checkpoint(1, false);
        putKeys("b", 10);
        StateHandle second = checkpoint(2, false);
        putKeys("c", 10);
        checkpoint(3, false);
        store.checkpointCompleted(2, second);

        Path checkpoints = dir.resolve("state").resolve(TASK).resolve("checkpoints");
        assertFalse(Files.exists(checkpoints.resolve("1")));
        assertTrue(Files.exists(checkpoints.resolve("2")));
        assertTrue(Files.exists(checkpoints.resolve("3")), "checkpoint 3 may still be uploading");
        store.close();
        assertTrue(Files.exists(checkpoints.resolve("2")), "the latest completed one stays for local recovery");
        assertFalse(Files.exists(checkpoints.resolve("3")));
    }

    @Test
    void aCheckpointOfTheMemoryBackendIsMigratedIntoRocksDb() throws IOException {
        MemoryStateStore memory = new MemoryStateStore(TASK, "m");
        memory.put(bytes("x"), bytes("1"));
        memory.put(bytes("y"), bytes("2"));
        StateHandle handle = memory.snapshot(4).write(snapshots, () -> false);
        store.close();

        store = backend.open(TASK, "g" + generation++, new RestorePoint(TASK, 4, handle), snapshots);
        assertEquals(Map.of("x", "1", "y", "2"), everything(store));
    }

    @Test
    void theMemoryBackendRefusesARocksDbCheckpointNamingTheSetting() throws IOException {
        putKeys("a", 10);
        StateHandle handle = checkpoint(1, true);
        StateRestoreException e = assertThrows(StateRestoreException.class, () -> new MemoryBackend()
                .open(TASK, "m", new RestorePoint(TASK, 1, handle), snapshots));
        assertTrue(e.getMessage().contains("processing.state.backend: rocksdb"), e.getMessage());
    }

    @Test
    void aTaskWithoutCheckpointStartsEmptyEvenWhenOldFilesAreOnDisk() throws IOException {
        putKeys("a", 10);
        checkpoint(1, true);
        store.close();
        store = backend.open(TASK, "g" + generation++, null, snapshots);
        assertEquals(Map.of(), everything(store));
    }
}
