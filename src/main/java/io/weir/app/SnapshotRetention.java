package io.weir.app;

import io.weir.checkpoint.TaskCheckpoint;
import io.weir.state.SnapshotStore;
import io.weir.state.StateHandle;
import io.weir.state.StoredFile;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the files of the last {@code retain} completed checkpoints of each task and deletes the
 * files no retained checkpoint references any more (a file shared by several checkpoints stays
 * while one of them is retained).
 *
 * <p>Threading: {@link #completed} is called from the coordinator's loop only; deletions run on
 * the given executor.
 */
final class SnapshotRetention {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotRetention.class);

    private final int retain;
    private final SnapshotStore store;
    private final Executor deleter;
    private final Map<String, Deque<StateHandle>> retained = new HashMap<>();

    SnapshotRetention(int retain, SnapshotStore store, Executor deleter) {
        this.retain = retain;
        this.store = store;
        this.deleter = deleter;
    }

    /** A restored checkpoint counts as retained: its files are still needed. */
    void restored(String task, StateHandle handle) {
        retained.computeIfAbsent(task, t -> new ArrayDeque<>()).addLast(handle);
    }

    void completed(List<TaskCheckpoint> tasks) {
        for (TaskCheckpoint c : tasks) {
            Deque<StateHandle> handles = retained.computeIfAbsent(c.task(), t -> new ArrayDeque<>());
            handles.addLast(c.state());
            while (handles.size() > retain) {
                StateHandle dropped = handles.removeFirst();
                Set<String> stillNeeded = new HashSet<>();
                handles.forEach(h -> h.files().forEach(f -> stillNeeded.add(f.name())));
                for (StoredFile f : dropped.files()) {
                    if (!stillNeeded.contains(f.name())) {
                        deleter.execute(() -> delete(f));
                    }
                }
            }
        }
    }

    private void delete(StoredFile f) {
        try {
            store.delete(f);
        } catch (Exception e) {
            LOG.warn("could not delete snapshot file {} (it stays as an orphan): {}", f.name(), e.toString());
        }
    }
}
