package io.weir.app;

import io.weir.state.SnapshotStore;
import io.weir.state.StoredFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the files of failed or aborted checkpoints (orphans) of the tasks an execution just
 * restored: every file of those tasks in the snapshot store that no retained checkpoint references
 * and that an older generation wrote. It is created when an execution starts, so leftovers of a
 * crash (kill -9 during an upload), of a failover and of a rebalance are all found the same way.
 *
 * <p>What a sweep may delete is bounded when it is created, because it runs later on the shared
 * housekeeping thread and by then the tasks may have moved on: (1) only files of generations
 * <em>older</em> than its own — a generation name starts with the time it was made ({@link
 * #newGeneration}), so the files of a later execution of the same task, on this instance after a
 * failover or on another after a rebalance, are never candidates; files an older generation wrote
 * that a later checkpoint reuses are referenced by a checkpoint retained at creation, and those are
 * kept; (2) the execution cancels its sweep when it stops, and the sweep checks that before it lists
 * and before every delete, so a sweep of a task this execution no longer owns stops. What remains:
 * a paused instance (a zombie) whose clock runs ahead of the new owner's by more than the time
 * between their starts could still delete that owner's files; see docs/architecture.md.
 *
 * <p>Threading: {@link #run} on the housekeeping thread; {@link #cancel} from any thread.
 */
final class OrphanSweep implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(OrphanSweep.class);
    private static final String PREFIX = "g";

    private final SnapshotStore store;
    private final Map<String, Set<String>> referencedByTask;
    private final String generation;
    private volatile boolean cancelled;

    OrphanSweep(SnapshotStore store, Map<String, Set<String>> referencedByTask, String generation) {
        this.store = store;
        this.referencedByTask = Map.copyOf(referencedByTask);
        this.generation = generation;
    }

    /**
     * A new generation name: {@code g}, the time in milliseconds (11 hex digits, so names sort by
     * time), {@code -} and 16 random bits, e.g. {@code g0193ab4c2d1-1f2e}.
     */
    static String newGeneration(long nowMillis) {
        return String.format(
                "%s%011x-%04x", PREFIX, nowMillis, ThreadLocalRandom.current().nextInt(0x10000));
    }

    /**
     * The time a generation was made; generations named before names carried it (random hex) are
     * older than any that does: 0.
     */
    static long madeAt(String generation) {
        int dash = generation.indexOf('-');
        if (!generation.startsWith(PREFIX) || dash != PREFIX.length() + 11) {
            return 0;
        }
        try {
            return Long.parseLong(generation.substring(PREFIX.length(), dash), 16);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Stops this sweep: it deletes nothing more. */
    void cancel() {
        cancelled = true;
    }

    /**
     * The files of {@code listed} to delete: of a swept task, unreferenced, and written by a
     * generation made before {@code generation}.
     */
    static List<StoredFile> orphans(
            List<StoredFile> listed, Map<String, Set<String>> referencedByTask, String generation) {
        long ownTime = madeAt(generation);
        List<StoredFile> orphans = new ArrayList<>();
        for (StoredFile f : listed) {
            String[] parts = f.name().split("/", 3);
            if (parts.length < 3) {
                continue;
            }
            Set<String> referenced = referencedByTask.get(parts[0]);
            if (referenced != null
                    && !referenced.contains(f.name())
                    && !parts[1].equals(generation)
                    && madeAt(parts[1]) < ownTime) {
                orphans.add(f);
            }
        }
        return orphans;
    }

    @Override
    public void run() {
        if (cancelled) {
            return;
        }
        try {
            List<StoredFile> listed = store.list(name -> {
                int slash = name.indexOf('/');
                return slash > 0 && referencedByTask.containsKey(name.substring(0, slash));
            });
            List<StoredFile> orphans = orphans(listed, referencedByTask, generation);
            long bytes = 0;
            int deleted = 0;
            for (StoredFile f : orphans) {
                if (cancelled) {
                    LOG.debug("orphan sweep of {} cancelled: its execution stopped", referencedByTask.keySet());
                    break;
                }
                store.delete(f);
                bytes += f.size();
                deleted++;
            }
            if (deleted > 0) {
                LOG.info(
                        "removed {} orphan snapshot files ({} bytes) of {}", deleted, bytes, referencedByTask.keySet());
            }
        } catch (Exception e) {
            // Orphans cost only space, and the next start of these tasks sweeps again.
            LOG.warn("sweeping orphan snapshot files of {} failed: {}", referencedByTask.keySet(), e.toString());
        }
    }
}
