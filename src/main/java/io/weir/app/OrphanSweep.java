package io.weir.app;

import io.weir.state.SnapshotStore;
import io.weir.state.StoredFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the files of failed or aborted checkpoints (orphans) of the tasks an execution just
 * restored: every file of those tasks in the snapshot store that no retained checkpoint references
 * and that the new execution did not write. It runs when an execution starts, so leftovers of a
 * crash (kill -9 during an upload), of a failover and of a rebalance are all found the same way.
 *
 * <p>Why this is safe while the execution runs: the new execution's stores write only under their
 * own generation ({@code task/generation/...}), which is skipped; the files it reuses are those of
 * the retained checkpoints, which are kept; and the store lists only files present when the sweep
 * started. A task's files are swept only by the instance the task is assigned to.
 *
 * <p>Threading: {@link #run} on an uploader thread; the inputs are immutable.
 */
final class OrphanSweep implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(OrphanSweep.class);

    private final SnapshotStore store;
    private final Map<String, Set<String>> referencedByTask;
    private final String generation;

    OrphanSweep(SnapshotStore store, Map<String, Set<String>> referencedByTask, String generation) {
        this.store = store;
        this.referencedByTask = Map.copyOf(referencedByTask);
        this.generation = generation;
    }

    /** The files of {@code listed} to delete: of a swept task, unreferenced, and not of {@code generation}. */
    static List<StoredFile> orphans(
            List<StoredFile> listed, Map<String, Set<String>> referencedByTask, String generation) {
        List<StoredFile> orphans = new ArrayList<>();
        for (StoredFile f : listed) {
            int slash = f.name().indexOf('/');
            Set<String> referenced =
                    slash < 0 ? null : referencedByTask.get(f.name().substring(0, slash));
            if (referenced != null
                    && !referenced.contains(f.name())
                    && !f.name().startsWith(f.name().substring(0, slash) + "/" + generation + "/")) {
                orphans.add(f);
            }
        }
        return orphans;
    }

    @Override
    public void run() {
        try {
            List<StoredFile> listed = store.list(name -> {
                int slash = name.indexOf('/');
                return slash > 0 && referencedByTask.containsKey(name.substring(0, slash));
            });
            List<StoredFile> orphans = orphans(listed, referencedByTask, generation);
            long bytes = 0;
            for (StoredFile f : orphans) {
                store.delete(f);
                bytes += f.size();
            }
            if (!orphans.isEmpty()) {
                LOG.info(
                        "removed {} orphan snapshot files ({} bytes) of {}",
                        orphans.size(),
                        bytes,
                        referencedByTask.keySet());
            }
        } catch (Exception e) {
            // Orphans cost only space, and the next start of these tasks sweeps again.
            LOG.warn("sweeping orphan snapshot files of {} failed: {}", referencedByTask.keySet(), e.toString());
        }
    }
}
