package io.weir.app;

import io.weir.checkpoint.CheckpointCoordinator;
import io.weir.checkpoint.CheckpointIo;
import io.weir.checkpoint.CheckpointListener;
import io.weir.checkpoint.CheckpointStats;
import io.weir.checkpoint.FailureReason;
import io.weir.checkpoint.TaskCheckpoint;
import io.weir.element.InputPartition;
import io.weir.kafka.CheckpointReader;
import io.weir.kafka.EpochProducers;
import io.weir.kafka.SourceLoop;
import io.weir.state.StateStore;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checkpoints of one execution: the completed ones it restores from, read from the checkpoint
 * topic and checked against the committed offsets, and the coordinator that takes the next ones,
 * wired to the execution's producers, source and stores and to the instance's events.
 */
final class ExecutionCheckpoints {
    private static final Logger LOG = LoggerFactory.getLogger(Execution.class); // its lines were Execution's
    private static final Duration RESTORE_TIMEOUT = Duration.ofSeconds(60);
    /** How long a stop waits for the commit in flight. */
    private static final Duration COMMIT_WAIT = Duration.ofSeconds(10);

    private final Execution.Context ctx;
    /** The execution: the owner of its barriers and of its failures at the source. */
    private final SourceLoop.Execution execution;
    /** The execution's tasks and their input partitions. */
    private final Map<String, List<InputPartition>> taskInputs;

    private final CheckpointReader reader;
    private final java.util.concurrent.CompletableFuture<Map<String, List<TaskCheckpoint>>> firstRead =
            new java.util.concurrent.CompletableFuture<>();
    /** What the first read of the checkpoint topic took; -1: not done. */
    private long readTook = -1;

    private CheckpointCoordinator coordinator;

    ExecutionCheckpoints(
            Execution.Context ctx, SourceLoop.Execution execution, Map<String, List<InputPartition>> taskInputs) {
        this.ctx = ctx;
        this.execution = execution;
        this.taskInputs = taskInputs;
        this.reader = ctx.checkpoints();
    }

    /**
     * Starts the first read of the checkpoint topic on a thread of its own; {@code began} is when
     * the restore began, which {@link #firstReadTook} counts from.
     */
    void startRead(long began) {
        InstanceSettings s = ctx.settings();
        Instance.named("weir-checkpoint-read")
                .newThread(() -> {
                    try {
                        var read = reader.history(
                                new TreeSet<>(taskInputs.keySet()), s.state().retain(), RESTORE_TIMEOUT);
                        readTook = ctx.clock().getAsLong() - began; // before complete: seen by its reader
                        firstRead.complete(read);
                    } catch (Throwable t) {
                        firstRead.completeExceptionally(t);
                    }
                })
                .start();
    }

    /** What the first read took from the restore's beginning; -1 if it did not end. */
    long firstReadTook() {
        return readTook;
    }

    /**
     * The latest checkpoints of every task. The committed offsets name the checkpoint they were
     * committed with; the checkpoint topic must hold at least that one, else it is read again (a
     * read that began before a predecessor's transaction was resolved, or a record committed a
     * moment ago, may not show it yet). The first read is the one {@link #startRead} began.
     */
    Map<String, List<TaskCheckpoint>> history(Map<InputPartition, Long> committedCheckpoints)
            throws IOException, InterruptedException {
        long deadline = ctx.clock().getAsLong() + RESTORE_TIMEOUT.toMillis();
        Map<String, List<TaskCheckpoint>> history;
        int reads = 0;
        try {
            history = firstRead.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
        while (true) {
            String missing = null;
            for (Map.Entry<String, List<InputPartition>> t : taskInputs.entrySet()) {
                for (InputPartition ip : t.getValue()) {
                    Long expected = committedCheckpoints.get(ip);
                    List<TaskCheckpoint> h = history.get(t.getKey());
                    TaskCheckpoint found = h == null ? null : h.get(h.size() - 1);
                    if (expected != null && (found == null || found.checkpointId() < expected)) {
                        missing = t.getKey() + " (offsets committed with checkpoint " + expected + ", found "
                                + (found == null ? "none" : found.checkpointId()) + ")";
                    }
                }
            }
            if (missing == null) {
                return history;
            }
            if (ctx.clock().getAsLong() > deadline) {
                throw new IOException("the checkpoint topic " + ctx.settings().checkpointTopic()
                        + " lacks the checkpoint of " + missing);
            }
            LOG.info("reading the checkpoint topic again for the checkpoint of {}", missing);
            if (reads++ > 0) {
                TimeUnit.MILLISECONDS.sleep(200); // a record committed a moment ago: give it time
            }
            history = reader.freshHistory(
                    new TreeSet<>(taskInputs.keySet()), ctx.settings().state().retain(), RESTORE_TIMEOUT);
        }
    }

    /**
     * Makes the coordinator (not started yet) that takes the checkpoints after {@code
     * lastCompleted}: with {@code producers}, and telling {@code stores} and {@code retention} of
     * each completed one.
     */
    CheckpointCoordinator newCoordinator(
            long lastCompleted, EpochProducers producers, Map<String, StateStore> stores, SnapshotRetention retention) {
        coordinator = new CheckpointCoordinator(new CheckpointCoordinator.Setup(
                ctx.settings().checkpoint(),
                taskInputs,
                lastCompleted,
                ctx.seams().checkpointIo().apply(io(producers)),
                ctx.snapshots(),
                ctx.coordinatorLoop(),
                ctx.uploads(),
                ctx.committer(),
                ctx.clock(),
                listener(stores, retention)));
        return coordinator;
    }

    private CheckpointIo io(EpochProducers producers) {
        return new CheckpointIo() {
            @Override
            public boolean canOpenEpoch() {
                return producers.canOpenEpoch();
            }

            @Override
            public void openEpoch(long epoch) {
                producers.openEpoch(epoch);
            }

            @Override
            public void injectBarrier(long checkpointId) {
                ctx.source()
                        .inject(
                                checkpointId,
                                new SourceLoop.InjectionReceiver() {
                                    @Override
                                    public void injected(
                                            long id, Map<InputPartition, Long> positions, Object fencingToken) {
                                        coordinator.injected(id, positions, fencingToken);
                                    }

                                    @Override
                                    public void skipped(long id) {
                                        coordinator.skipped(id);
                                    }
                                },
                                execution);
            }

            @Override
            public void commit(
                    long checkpointId,
                    List<TaskCheckpoint> tasks,
                    Map<InputPartition, Long> positions,
                    Object fencingToken)
                    throws Exception {
                producers.commit(checkpointId, tasks, positions, fencingToken);
            }
        };
    }

    private CheckpointListener listener(Map<String, StateStore> stores, SnapshotRetention retention) {
        return new CheckpointListener() {
            @Override
            public void triggered(long checkpointId, long startedAt) {
                ctx.events().checkpointTriggered(checkpointId, startedAt);
            }

            @Override
            public void skipped(long checkpointId, boolean idle) {
                ctx.events().checkpointSkipped(checkpointId, idle);
            }

            @Override
            public void completed(CheckpointStats stats) {
                CheckpointListener.super.completed(stats);
                ctx.events().checkpointCompleted(stats);
                Map<String, Map<String, Long>> sampled = new TreeMap<>();
                stores.forEach((task, store) -> sampled.put(task, store.sampledProperties()));
                ctx.events().stateSampled(sampled);
            }

            @Override
            public void completed(long checkpointId, List<TaskCheckpoint> tasks, long durationMillis) {
                ctx.stats().lastCompletedCheckpoint = checkpointId;
                ctx.stats().lastCheckpointMillis = durationMillis;
                for (TaskCheckpoint t : tasks) {
                    StateStore store = stores.get(t.task());
                    if (store != null) {
                        store.checkpointCompleted(checkpointId, t.state());
                    }
                }
                retention.completed(tasks);
                ctx.purge().completed(tasks);
                ctx.source().progress();
            }

            @Override
            public void failed(long checkpointId, FailureReason reason, Throwable cause) {
                ctx.events().checkpointFailed(checkpointId, reason, cause);
                ctx.source().fail(cause, execution);
            }
        };
    }

    /**
     * A stop's first step: no new checkpoint and no new upload; the commit in flight finishes (or
     * fails, or is left after {@code COMMIT_WAIT}). Whether no commit is left running on the
     * producers.
     */
    boolean stop() {
        boolean commitEnded = true; // no commit left running on the producers
        if (coordinator != null) {
            Future<?> commit = null;
            try {
                commit = coordinator.stop().get(30, TimeUnit.SECONDS);
                if (commit != null) {
                    // A commit takes milliseconds; one waiting for an unreachable broker would block
                    // for max.block.ms (60 s). Its outcome need not be known: a restore starts from
                    // the checkpoint the committed offsets name, whichever way it ended.
                    commit.get(COMMIT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                }
            } catch (java.util.concurrent.TimeoutException e) {
                commitEnded = false;
                LOG.warn(
                        "stopping without waiting longer for {}: {}",
                        commit == null
                                ? "the checkpoint coordinator"
                                : "the commit in flight (is the broker reachable?)",
                        e.toString());
                if (commit != null) {
                    commit.cancel(false); // still queued behind another run's commit: never start it
                }
            } catch (java.util.concurrent.ExecutionException e) {
                commitEnded = commit != null; // the commit failed: it ended; the coordinator's stop: unknown
                LOG.debug("stopping the coordinator: {}", e.toString());
            } catch (Exception e) {
                commitEnded = false;
                LOG.debug("stopping the coordinator: {}", e.toString());
            }
        }
        return commitEnded;
    }
}
