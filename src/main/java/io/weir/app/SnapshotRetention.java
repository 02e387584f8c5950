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
 * files no retained checkpoint references any more. Incremental checkpoints share files, so a file
 * is reference-counted by the retained checkpoints naming it and stays while one of them is kept.
 *
 * <p>An execution builds its retention from the checkpoint topic ({@link #restored}: the task's last
 * {@code retain} records there), not from memory, so what is retained survives failovers,
 * rebalances and restarts alike. Checkpoints that compaction already removed from the topic can no
 * longer be restored from, so forgetting their files is safe.
 *
 * <p>Threading: {@link #restored} and {@link #referenced} while the execution is built, then
 * {@link #completed} from the coordinator's loop only; deletions run on the given executor.
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

    /** The task's completed checkpoints still in the checkpoint topic, oldest first. */
    void restored(String task, List<StateHandle> history) {
        Deque<StateHandle> handles = new ArrayDeque<>(history);
        while (handles.size() > retain) {
            handles.removeFirst(); // kept by no one now; the orphan sweep removes their files
        }
        retained.put(task, handles);
    }

    /** Names of the files the retained checkpoints of {@code task} reference. */
    Set<String> referenced(String task) {
        Set<String> names = new HashSet<>();
        retained.getOrDefault(task, new ArrayDeque<>()).forEach(h -> h.files().forEach(f -> names.add(f.name())));
        return names;
    }

    void completed(List<TaskCheckpoint> tasks) {
        for (TaskCheckpoint c : tasks) {
            Deque<StateHandle> handles = retained.computeIfAbsent(c.task(), t -> new ArrayDeque<>());
            handles.addLast(c.state());
            while (handles.size() > retain) {
                StateHandle dropped = handles.removeFirst();
                Set<String> stillNeeded = referenced(c.task());
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
        } catch (java.util.concurrent.CancellationException e) {
            // The instance is closing (its housekeeping thread is interrupted): expected, not worth a
            // warning; the sweep at the task's next start removes the orphan.
            LOG.debug("deleting snapshot file {} was cut short by the close (it stays as an orphan)", f.name());
        } catch (Exception e) {
            // An undeleted file is an orphan: the sweep at the task's next start removes it.
            LOG.warn("could not delete snapshot file {} (it stays as an orphan): {}", f.name(), e.toString());
        }
    }
}
