package io.weir.checkpoint;

import io.weir.element.InputPartition;
import io.weir.state.SnapshotPart;
import io.weir.state.SnapshotStore;
import io.weir.state.StateHandle;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Triggers checkpoints, collects the tasks' acknowledgements and asynchronous parts, and commits
 * completed checkpoints strictly in id order.
 *
 * <p>A checkpoint n is triggered when fewer than {@code max-concurrent} are in flight, at least
 * {@code min-pause} passed since the last completion, the source loop answered the previous trigger
 * and a producer is free for epoch n+1; epoch n+1 is opened before barrier n is injected because a
 * task switches to it the moment it passes the barrier. n is ready when the source loop reported its positions Sn, every task acknowledged
 * it and every asynchronous part finished; it commits once it is ready and every older one
 * committed. Any failure — a timeout, an upload error, a commit error — ends this coordinator and
 * tells the owner to fail over; nothing is retried here, so exactly-once never rests on a guess.
 *
 * <p>Threading: one event loop. Every public method posts to {@code loop}; all fields are touched
 * by the loop thread only. Uploads run on {@code uploads}, commits on {@code committer} (one
 * thread, so commits also execute in submission order).
 */
public final class CheckpointCoordinator {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

    /** Everything a coordinator needs; one per execution. */
    public record Setup(
            CheckpointSettings settings,
            Map<String, List<InputPartition>> taskInputs,
            long lastCompletedId,
            CheckpointIo io,
            SnapshotStore snapshots,
            ScheduledExecutorService loop,
            ExecutorService uploads,
            ExecutorService committer,
            LongSupplier clock,
            CheckpointListener listener) {
        public Setup {
            taskInputs = Map.copyOf(taskInputs);
        }
    }

    private static final long FIRST_AFTER_RESTORE_MS = 50;
    private static final long EARLY_RETRIES_MS = 1_000;

    private final Setup s;
    private final TreeMap<Long, Pending> pending = new TreeMap<>();
    private long nextId;
    private long lastCompletion = Long.MIN_VALUE / 2;
    /** Until when a skipped checkpoint is tried again soon: after a restore, until one carried input. */
    private long earlyUntil = Long.MIN_VALUE;

    private boolean stopped;
    private java.util.concurrent.CompletableFuture<Void> drained;
    private ScheduledFuture<?> ticker;
    private Future<?> commitInFlight;

    private static final class Pending {
        final long id;
        final long started;
        final Map<String, StateHandle> handles = new HashMap<>();
        final Map<String, Future<?>> uploads = new HashMap<>();
        final Map<String, TaskCheckpoint.Stats> taskStats = new HashMap<>();
        long commitStarted;
        Map<InputPartition, Long> positions;
        Object fencingToken;
        boolean committing;
        ScheduledFuture<?> timeout;

        Pending(long id, long started) {
            this.id = id;
            this.started = started;
        }
    }

    public CheckpointCoordinator(Setup setup) {
        this.s = setup;
        this.nextId = setup.lastCompletedId() + 1;
    }

    /** Opens the first epoch (if the owner did not already) and starts the periodic trigger. */
    public void start() {
        s.io().openEpoch(nextId);
        long every = s.settings().interval().toMillis();
        // After a restore the first checkpoint comes early: until it commits, nothing the restarted
        // job produced is visible, and that wait is the recovery time users see.
        long first = s.lastCompletedId() > 0 ? Math.min(every, FIRST_AFTER_RESTORE_MS) : every;
        // A barrier that finds no input yet (the restored partitions' first fetch is on its way) is
        // skipped; then try again soon, not an interval later, until one carries input, for at most
        // the first interval or second (an idle input then waits for the ticker as usual).
        earlyUntil =
                s.lastCompletedId() > 0 ? s.clock().getAsLong() + Math.min(every, EARLY_RETRIES_MS) : Long.MIN_VALUE;
        ticker = s.loop().scheduleAtFixedRate(this::tryTrigger, first, every, TimeUnit.MILLISECONDS);
    }

    /** Triggers a checkpoint now if the rules allow it (the periodic trigger goes on as before). */
    public void triggerNow() {
        s.loop().execute(this::tryTrigger);
    }

    public void injected(long id, Map<InputPartition, Long> positions, Object fencingToken) {
        s.loop().execute(() -> {
            Pending p = pending.get(id);
            if (p != null) {
                earlyUntil = Long.MIN_VALUE;
                p.positions = Map.copyOf(positions);
                p.fencingToken = fencingToken;
                commitIfReady();
            }
        });
    }

    /** The source loop saw no input since the last barrier: nothing to checkpoint, reuse the id. */
    public void skipped(long id) {
        s.loop().execute(() -> {
            Pending p = pending.remove(id);
            if (p != null && !stopped) {
                p.timeout.cancel(false);
                nextId = id;
                s.listener().skipped(id, pending.isEmpty()); // one request at a time: the rest are earlier
                if (s.clock().getAsLong() + FIRST_AFTER_RESTORE_MS < earlyUntil) {
                    s.loop().schedule(this::tryTrigger, FIRST_AFTER_RESTORE_MS, TimeUnit.MILLISECONDS);
                }
            }
            if (drained != null && pending.isEmpty()) {
                drained.complete(null);
            }
        });
    }

    /**
     * For a graceful stop, once the owner stopped reading input: keeps checkpointing until a
     * checkpoint finds nothing new, i.e. everything read so far is committed. The future completes
     * then, or exceptionally when a checkpoint fails.
     */
    public java.util.concurrent.CompletableFuture<Void> drain() {
        java.util.concurrent.CompletableFuture<Void> done = new java.util.concurrent.CompletableFuture<>();
        s.loop().execute(() -> {
            if (stopped) {
                done.completeExceptionally(new IllegalStateException("the coordinator has stopped"));
                return;
            }
            drained = done;
            tryTrigger();
        });
        return done;
    }

    public CheckpointAcks acks() {
        return new CheckpointAcks() {
            @Override
            public void acknowledge(String task, long checkpointId, SnapshotPart asyncPart) {
                acknowledge(task, checkpointId, asyncPart, 0);
            }

            @Override
            public void acknowledge(String task, long checkpointId, SnapshotPart asyncPart, long syncMillis) {
                s.loop().execute(() -> acknowledged(task, checkpointId, asyncPart, syncMillis));
            }
        };
    }

    /**
     * Stops triggering, cancels uploads and returns the commit in flight (or null), which the owner
     * waits for before it touches the producers.
     */
    public Future<Future<?>> stop() {
        return s.loop().submit(() -> {
            stopped = true;
            if (ticker != null) {
                ticker.cancel(false);
            }
            for (Pending p : pending.values()) {
                cancel(p);
            }
            return commitInFlight;
        });
    }

    private void tryTrigger() {
        long now = s.clock().getAsLong();
        if (stopped
                || s.taskInputs().isEmpty()
                || pending.size() >= s.settings().maxConcurrent()
                // One barrier request at a time: a task writes epoch n+1 after barrier n, so the ids
                // reaching it must have no gaps, and skipped(n) may only reuse n while no later id was
                // requested.
                || (!pending.isEmpty() && pending.lastEntry().getValue().positions == null)
                || now - lastCompletion < s.settings().minPause().toMillis()
                || !s.io().canOpenEpoch()) {
            return;
        }
        long id = nextId++;
        Pending p = new Pending(id, now);
        pending.put(id, p);
        p.timeout = s.loop().schedule(() -> expire(id), s.settings().timeout().toMillis(), TimeUnit.MILLISECONDS);
        s.io().openEpoch(id + 1);
        s.listener().triggered(id, now);
        s.io().injectBarrier(id);
    }

    private void acknowledged(String task, long id, SnapshotPart part, long syncMillis) {
        Pending p = pending.get(id);
        if (p == null || stopped) {
            return;
        }
        long acknowledgedAt = s.clock().getAsLong();
        p.taskStats.put(task, new TaskCheckpoint.Stats(acknowledgedAt - p.started - syncMillis, syncMillis, 0, 0));
        p.uploads.put(task, s.uploads().submit(() -> {
            try {
                MeteredUpload store = new MeteredUpload(s.snapshots());
                StateHandle handle =
                        part.write(store, () -> Thread.currentThread().isInterrupted());
                s.loop().execute(() -> uploaded(id, task, handle, acknowledgedAt, store.written()));
            } catch (CancellationException e) {
                // the checkpoint was aborted; its owner already knows
            } catch (Exception | Error e) {
                s.loop()
                        .execute(() -> fail(
                                id,
                                FailureReason.SNAPSHOT_FAILED,
                                new IllegalStateException(
                                        "snapshot of " + task + " for checkpoint " + id + " failed", e)));
            }
        }));
    }

    private void uploaded(long id, String task, StateHandle handle, long acknowledgedAt, long bytes) {
        Pending p = pending.get(id);
        if (p != null && !stopped) {
            p.handles.put(task, handle);
            TaskCheckpoint.Stats acked = p.taskStats.get(task);
            p.taskStats.put(
                    task,
                    new TaskCheckpoint.Stats(
                            acked.alignmentMillis(),
                            acked.syncMillis(),
                            s.clock().getAsLong() - acknowledgedAt,
                            bytes));
            commitIfReady();
        }
    }

    private void commitIfReady() {
        if (stopped || pending.isEmpty() || commitInFlight != null) {
            return;
        }
        Pending p = pending.firstEntry().getValue();
        if (p.committing
                || p.positions == null
                || p.handles.size() < s.taskInputs().size()) {
            return;
        }
        p.committing = true;
        long now = s.clock().getAsLong();
        p.commitStarted = now;
        List<TaskCheckpoint> tasks = new ArrayList<>();
        for (Map.Entry<String, List<InputPartition>> t : s.taskInputs().entrySet()) {
            Map<InputPartition, Long> positions = new HashMap<>();
            for (InputPartition ip : t.getValue()) {
                Long offset = p.positions.get(ip);
                if (offset == null) {
                    fail(
                            p.id,
                            FailureReason.COMMIT_FAILED,
                            new IllegalStateException("checkpoint " + p.id + " has no position for " + ip));
                    return;
                }
                positions.put(ip, offset);
            }
            tasks.add(new TaskCheckpoint(
                    t.getKey(), p.id, now, positions, p.handles.get(t.getKey()), p.taskStats.get(t.getKey())));
        }
        commitInFlight = s.committer().submit(() -> {
            try {
                s.io().commit(p.id, tasks, p.positions, p.fencingToken);
                s.loop().execute(() -> committed(p, tasks));
            } catch (Exception | Error e) {
                s.loop().execute(() -> {
                    commitInFlight = null;
                    fail(
                            p.id,
                            FailureReason.COMMIT_FAILED,
                            new IllegalStateException("commit of checkpoint " + p.id + " failed", e));
                });
            }
        });
    }

    private void committed(Pending p, List<TaskCheckpoint> tasks) {
        commitInFlight = null;
        pending.remove(p.id);
        p.timeout.cancel(false);
        if (stopped) {
            // The owner stopped meanwhile and may have closed its state: the checkpoint is in Kafka
            // (a restore finds it there), but no listener hears of it from a stopped execution.
            LOG.debug("checkpoint {} committed after the coordinator stopped", p.id);
            return;
        }
        long now = s.clock().getAsLong();
        lastCompletion = now;
        LOG.debug("checkpoint {} completed in {} ms ({} tasks)", p.id, now - p.started, tasks.size());
        Map<String, Long> stateBytes = new HashMap<>();
        long alignment = 0;
        long sync = 0;
        long upload = 0;
        long uploaded = 0;
        for (TaskCheckpoint t : tasks) {
            stateBytes.put(t.task(), t.stateBytes());
            alignment = Math.max(alignment, t.stats().alignmentMillis());
            sync = Math.max(sync, t.stats().syncMillis());
            upload = Math.max(upload, t.stats().uploadMillis());
            uploaded += t.stats().uploadedBytes();
        }
        s.listener()
                .completed(new CheckpointStats(
                        p.id,
                        p.started,
                        alignment,
                        sync,
                        upload,
                        now - p.commitStarted,
                        now - p.started,
                        uploaded,
                        stateBytes,
                        tasks));
        commitIfReady();
        if (drained != null) {
            tryTrigger(); // draining: the next checkpoint now, not at the next tick
        }
    }

    private void expire(long id) {
        Pending p = pending.get(id);
        if (p != null && p.committing) {
            // Its commit is on its way: its outcome decides. Failed here, a checkpoint whose
            // transaction then committed was reported failed and cost a failover; a commit that
            // hangs ends with the producer's own timeout (max.block.ms), as COMMIT_FAILED.
            LOG.debug("checkpoint {} reached its timeout while committing; waiting for the commit", id);
            return;
        }
        if (p != null && !stopped) {
            fail(
                    id,
                    FailureReason.TIMEOUT,
                    new IllegalStateException("checkpoint " + id + " did not complete within "
                            + s.settings().timeout() + " (acknowledged by " + p.uploads.size() + " of "
                            + s.taskInputs().size() + " tasks, " + p.handles.size() + " snapshots written, positions "
                            + (p.positions == null ? "missing" : "known") + ")"));
        }
    }

    private void fail(long id, FailureReason reason, Throwable cause) {
        if (stopped) {
            return;
        }
        stopped = true;
        if (ticker != null) {
            ticker.cancel(false);
        }
        for (Pending p : pending.values()) {
            cancel(p);
        }
        LOG.warn("checkpoint {} failed ({}): {}", id, reason, cause.toString());
        if (drained != null) {
            drained.completeExceptionally(cause);
        }
        s.listener().failed(id, reason, cause);
    }

    private static void cancel(Pending p) {
        if (p.timeout != null) {
            p.timeout.cancel(false);
        }
        for (Future<?> upload : p.uploads.values()) {
            upload.cancel(true);
        }
    }
}
