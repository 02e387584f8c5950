package io.weir.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.checkpoint.TaskCheckpoint;
import io.weir.state.FileSnapshotStore;
import io.weir.state.KeyedState;
import io.weir.state.RestorePoint;
import io.weir.state.RocksDbBackend;
import io.weir.state.RocksDbSettings;
import io.weir.state.SnapshotStore;
import io.weir.state.StateBackend;
import io.weir.state.StateHandle;
import io.weir.state.StateStore;
import io.weir.state.StoredFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Retention of incremental checkpoints and the sweep of orphans, on a real RocksDB and file store. */
class SnapshotRetentionTest {
    private static final String G1 = OrphanSweep.newGeneration(1_000);
    private static final String G2 = OrphanSweep.newGeneration(2_000);
    private static final String G3 = OrphanSweep.newGeneration(3_000);

    private static final String TASK = "job-1";
    private static final RocksDbSettings SMALL = new RocksDbSettings(8 << 20, 256 << 10);

    @TempDir
    Path dir;

    private static Set<String> listed(SnapshotStore store) throws IOException {
        return store.list(n -> n.startsWith(TASK + "/")).stream()
                .map(StoredFile::name)
                .collect(Collectors.toSet());
    }

    private static Set<String> referenced(Iterable<StateHandle> handles) {
        Set<String> names = new HashSet<>();
        handles.forEach(h -> h.files().forEach(f -> names.add(f.name())));
        return names;
    }

    private static Map<String, String> everything(StateStore s) {
        Map<String, String> all = new TreeMap<>();
        for (Iterator<Map.Entry<byte[], byte[]>> it = s.scan(new byte[0]); it.hasNext(); ) {
            Map.Entry<byte[], byte[]> e = it.next();
            all.put(new String(e.getKey(), StandardCharsets.UTF_8), new String(e.getValue(), StandardCharsets.UTF_8));
        }
        return all;
    }

    private static void change(StateStore store, TreeMap<String, String> model, Random random, int n) {
        for (int i = 0; i < n; i++) {
            String key = "user-" + random.nextInt(3000);
            String value = Long.toString(random.nextLong(), 36).repeat(8);
            store.put(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
            model.put(key, value);
        }
    }

    @Test
    void sixtyCheckpointsOfChangingStateKeepExactlyTheFilesOfTheLastThree() throws IOException {
        SnapshotStore snapshots = new FileSnapshotStore(dir.resolve("snapshots"));
        SnapshotRetention retention = new SnapshotRetention(3, snapshots, Runnable::run);
        Random random = new Random(7);
        TreeMap<String, String> model = new TreeMap<>();
        Deque<StateHandle> lastThree = new ArrayDeque<>();
        Map<Long, Map<String, String>> models = new HashMap<>();
        long bytesAt20 = 0;
        long maxFiles = 0;
        try (StateBackend backend = new RocksDbBackend(dir.resolve("state"), SMALL);
                StateStore store = backend.open(TASK, G1, null, snapshots)) {
            for (long id = 1; id <= 60; id++) {
                change(store, model, random, 400);
                StateHandle h = store.snapshot(id).write(snapshots, () -> false);
                store.checkpointCompleted(id, h);
                retention.completed(List.of(new TaskCheckpoint(TASK, id, id, Map.of(), h)));
                lastThree.addLast(h);
                models.put(id, new TreeMap<>(model));
                if (lastThree.size() > 3) {
                    lastThree.removeFirst();
                }
                assertEquals(referenced(lastThree), listed(snapshots), "after checkpoint " + id);
                maxFiles = Math.max(maxFiles, listed(snapshots).size());
                if (id == 20) {
                    bytesAt20 = bytes(snapshots);
                }
            }
            assertTrue(bytes(snapshots) < 2 * bytesAt20, "store grew from " + bytesAt20 + " to " + bytes(snapshots));
        }
        // Every retained checkpoint still restores to the state it captured.
        long id = 58;
        for (StateHandle h : lastThree) {
            try (StateBackend newPod = new RocksDbBackend(dir.resolve("new-pod-" + id), SMALL);
                    StateStore restored = newPod.open(TASK, "g2", new RestorePoint(TASK, id, h), snapshots)) {
                assertEquals(models.get(id), everything(restored), "checkpoint " + id);
            }
            id++;
        }
        assertTrue(maxFiles < 40, "at most " + maxFiles + " files for three checkpoints");
    }

    private static long bytes(SnapshotStore store) throws IOException {
        return store.list(n -> true).stream().mapToLong(StoredFile::size).sum();
    }

    @Test
    void theSweepRemovesFilesOfAnAbortedCheckpointAndKeepsEverythingRetained() throws IOException {
        SnapshotStore snapshots = new FileSnapshotStore(dir.resolve("snapshots"));
        SnapshotRetention before = new SnapshotRetention(3, snapshots, Runnable::run);
        List<StateHandle> completed = new java.util.ArrayList<>();
        StateHandle aborted;
        try (StateBackend backend = new RocksDbBackend(dir.resolve("state"), SMALL);
                StateStore store = backend.open(TASK, G1, null, snapshots)) {
            KeyedState state = new KeyedState(store);
            for (long id = 1; id <= 4; id++) {
                state.setCurrentKey(("k" + id).getBytes(StandardCharsets.UTF_8));
                state.valueState("v", io.weir.state.Serde.LONG).update(id);
                StateHandle h = store.snapshot(id).write(snapshots, () -> false);
                store.checkpointCompleted(id, h);
                before.completed(List.of(new TaskCheckpoint(TASK, id, id, Map.of(), h)));
                completed.add(h);
            }
            state.valueState("v", io.weir.state.Serde.LONG).update(99L);
            aborted = store.snapshot(5).write(snapshots, () -> false); // the crash came before the commit
        }
        StoredFile newExecutionsFile = snapshots.write(TASK + "/" + G2 + "/6/000099.sst", new byte[10]);
        StoredFile otherTasksFile = snapshots.write("job-2/" + G1 + "/5/000001.sst", new byte[10]);

        // A new execution: retention from the checkpoint topic's history, then the sweep.
        SnapshotRetention after = new SnapshotRetention(3, snapshots, Runnable::run);
        after.restored(TASK, completed);
        new OrphanSweep(snapshots, Map.of(TASK, after.referenced(TASK)), G2).run();

        Set<String> expected = referenced(completed.subList(1, 4));
        expected.add(newExecutionsFile.name());
        assertEquals(expected, listed(snapshots));
        assertTrue(aborted.files().stream().anyMatch(f -> !expected.contains(f.name())));
        assertEquals(1, snapshots.list(n -> n.equals(otherTasksFile.name())).size(), "other tasks are not swept");
    }

    @Test
    void anOrphanIsAFileOfASweptTaskThatNoRetainedCheckpointNamesWrittenByAnOlderGeneration() {
        StoredFile kept = new StoredFile("t-0/" + G1 + "/1/1.sst", 1, 0, List.of());
        StoredFile orphan = new StoredFile("t-0/" + G1 + "/2/2.sst", 1, 0, List.of());
        StoredFile legacy = new StoredFile("t-0/5f3a9c/2/2.sst", 1, 0, List.of()); // random-hex generation
        StoredFile current = new StoredFile("t-0/" + G2 + "/3/3.sst", 1, 0, List.of());
        StoredFile later = new StoredFile("t-0/" + G3 + "/4/4.sst", 1, 0, List.of());
        StoredFile otherTask = new StoredFile("t-1/" + G1 + "/2/2.sst", 1, 0, List.of());
        StoredFile prefixTwin = new StoredFile("t-01/" + G1 + "/2/2.sst", 1, 0, List.of());
        assertEquals(
                List.of(orphan, legacy),
                OrphanSweep.orphans(
                        List.of(kept, orphan, legacy, current, later, otherTask, prefixTwin),
                        Map.of("t-0", Set.of(kept.name())),
                        G2));
    }

    @Test
    void aSweepThatRunsLateSparesTheFilesOfALaterExecutionOfTheTask() throws IOException {
        SnapshotStore snapshots = new FileSnapshotStore(dir.resolve("snapshots"));
        StoredFile retained = snapshots.write(TASK + "/" + G1 + "/1/000001.sst", new byte[10]);
        StoredFile orphan = snapshots.write(TASK + "/" + G1 + "/2/000002.sst", new byte[10]);
        // Execution G2 starts; its sweep waits behind other housekeeping work.
        OrphanSweep late = new OrphanSweep(snapshots, Map.of(TASK, Set.of(retained.name())), G2);
        // Meanwhile the task failed over (or moved to another instance): G3 restored and checkpointed.
        StoredFile newer = snapshots.write(TASK + "/" + G3 + "/3/000003.sst", new byte[10]);

        late.run();

        assertEquals(Set.of(retained.name(), newer.name()), listed(snapshots));
        assertTrue(!listed(snapshots).contains(orphan.name()));
    }

    @Test
    void aCancelledSweepDeletesNothing() throws IOException {
        SnapshotStore snapshots = new FileSnapshotStore(dir.resolve("snapshots"));
        StoredFile orphan = snapshots.write(TASK + "/" + G1 + "/2/000002.sst", new byte[10]);
        OrphanSweep sweep = new OrphanSweep(snapshots, Map.of(TASK, Set.of()), G2);

        sweep.cancel(); // its execution stopped before the housekeeping thread got to it
        sweep.run();

        assertEquals(Set.of(orphan.name()), listed(snapshots));
    }

    @Test
    void generationNamesCarryTheTimeTheyWereMade() {
        assertEquals(1_000L, OrphanSweep.madeAt(OrphanSweep.newGeneration(1_000)));
        assertEquals(0L, OrphanSweep.madeAt("5f3a9c"));
        assertTrue(OrphanSweep.newGeneration(1_000).compareTo(OrphanSweep.newGeneration(2_000)) < 0);
    }

    @Test
    void retentionRebuiltFromALongerHistoryKeepsOnlyTheLastRetained() {
        List<StateHandle> history = List.of(handle("a"), handle("b"), handle("c"), handle("d"));
        SnapshotRetention retention = new SnapshotRetention(2, null, Runnable::run);
        retention.restored(TASK, history);
        assertEquals(Set.of(TASK + "/c", TASK + "/d"), retention.referenced(TASK));
    }

    private static StateHandle handle(String file) {
        return new StateHandle("rocksdb", List.of(new StoredFile(TASK + "/" + file, 1, 0, List.of())));
    }
}
