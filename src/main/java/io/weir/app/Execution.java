package io.weir.app;

import io.weir.checkpoint.CheckpointCoordinator;
import io.weir.checkpoint.CheckpointIo;
import io.weir.checkpoint.CheckpointListener;
import io.weir.checkpoint.CheckpointStats;
import io.weir.checkpoint.FailureReason;
import io.weir.checkpoint.TaskCheckpoint;
import io.weir.checkpoint.WrittenEpochs;
import io.weir.dataflow.Channel;
import io.weir.dataflow.Counters;
import io.weir.dataflow.RecordLimits;
import io.weir.dataflow.Stage;
import io.weir.dataflow.Task;
import io.weir.dataflow.TaskEnvironment;
import io.weir.dataflow.Worker;
import io.weir.element.InputPartition;
import io.weir.kafka.AtLeastOnceProducers;
import io.weir.kafka.CheckpointReader;
import io.weir.kafka.EpochProducers;
import io.weir.kafka.KafkaClients;
import io.weir.kafka.SourceLoop;
import io.weir.kafka.TransactionalProducers;
import io.weir.state.KeyedState;
import io.weir.state.RestoreSizes;
import io.weir.state.SnapshotStore;
import io.weir.state.StateBackend;
import io.weir.state.StateStore;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tasks of the partitions assigned to this instance, running: restored from their latest
 * completed checkpoints, with their worker threads, producers and checkpoint coordinator. An
 * execution lives from an assignment (or a failover) to the next revocation (or failure); it is
 * never repaired in place — failover stops it and starts a new one.
 */
final class Execution implements SourceLoop.Execution {
    private static final Logger LOG = LoggerFactory.getLogger(Execution.class);
    private static final Duration RESTORE_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration WORKER_STOP_TIMEOUT = Duration.ofSeconds(10);
    /** How long a stop waits for the aborts of its open transactions (see {@link #runWithin}). */
    private static final Duration ABORT_WAIT = Duration.ofSeconds(5);
    /** How long a stop waits for the commit in flight. */
    private static final Duration COMMIT_WAIT = Duration.ofSeconds(10);
    /**
     * How long a new execution waits for the abort of the slot its block's cleaner is on: one
     * producer initialisation, which gives up after max.block.ms (60 s by default).
     */
    private static final Duration CLEANING_WAIT = Duration.ofSeconds(70);

    /** What an execution is built from; shared by all executions of an instance. */
    record Context(
            InstanceSettings settings,
            KafkaClients clients,
            SnapshotStore snapshots,
            StateBackend backend,
            ScheduledExecutorService coordinatorLoop,
            ExecutorService uploads,
            ExecutorService committer,
            ExecutorService housekeeping,
            RepartitionPurge purge,
            LongSupplier clock,
            Counters counters,
            RecordLimits limits,
            Instance.Stats stats,
            SourceLoop source,
            Seams seams,
            InstanceEvents events,
            DepartedTransactions departed,
            ProducerSlots producerSlots,
            StartGate startGate,
            CheckpointReader checkpoints) {}

    /**
     * What an execution waits for once its state is restored and before its workers start (the
     * instance's start-up checks still running beside the restore); throws to fail the start.
     */
    @FunctionalInterface
    public interface StartGate {
        void await() throws IOException;
    }

    /**
     * Per assigned partition, the checkpoint id its committed offset names (absent: none). Reading
     * it waits for a predecessor's pending transactional offsets to resolve, so call it only after
     * this execution's producers were initialised — which is what aborts the transactions a crashed
     * predecessor with the same transactional ids left open.
     */
    @FunctionalInterface
    interface CommittedCheckpoints {
        Map<InputPartition, Long> read();
    }

    private final Map<InputPartition, Channel> channels = new HashMap<>();
    private final Map<InputPartition, Worker> workerOf = new HashMap<>();
    private final Map<InputPartition, Long> startPositions = new HashMap<>();
    /** Partitions of tables (lookups): read from the beginning when no checkpoint says where. */
    private final Set<InputPartition> tables = new HashSet<>();

    private final List<Worker> workers = new ArrayList<>();
    private final Map<String, StateStore> stores = new HashMap<>();
    private EpochProducers producers;
    private WrittenEpochs written;
    private CheckpointCoordinator coordinator;
    private OrphanSweep sweep;
    private ProducerSlots producerSlots;
    /** The first transactional-id slot of this execution's producers; -1: none taken. */
    private int firstSlot = -1;

    private Context context;

    private Execution() {}

    /** The producer pool size: one per checkpoint in flight plus the epoch being written. */
    static int poolSize(InstanceSettings s) {
        return s.checkpoint().maxConcurrent() + 1;
    }

    /**
     * Builds and starts the execution of {@code assigned}. {@code ended} turns true when the run it
     * is for was ended meanwhile: the build then gives up at its next step (a CancellationException)
     * and stops what it made, so that the restore thread goes on to the run that replaced it.
     */
    static Execution start(
            Context ctx,
            Set<InputPartition> assigned,
            CommittedCheckpoints committedCheckpoints,
            java.util.function.BooleanSupplier ended)
            throws Exception {
        Execution e = new Execution();
        try {
            e.build(ctx, assigned, committedCheckpoints, ended);
            return e;
        } catch (Exception | Error failure) {
            e.stop();
            throw failure;
        }
    }

    private void build(
            Context ctx,
            Set<InputPartition> assigned,
            CommittedCheckpoints committedCheckpoints,
            java.util.function.BooleanSupplier ended)
            throws Exception {
        InstanceSettings s = ctx.settings();
        context = ctx;
        if (ctx.departed() != null) {
            // Committed offsets below may be pending in a departed instance's open transaction.
            ctx.departed().abortAsync();
        }
        // Task = stage × partition index: partition p of every input topic of a stage.
        Map<String, Stage> stageOf = new HashMap<>();
        Map<String, List<InputPartition>> taskInputs = new TreeMap<>();
        for (InputPartition ip : assigned) {
            Stage stage = s.stageReading(ip.topic());
            if (stage == null) {
                throw new IllegalStateException("assigned " + ip + ", which no stage reads");
            }
            String task = stage.taskName(ip.partition());
            stageOf.put(task, stage);
            taskInputs.computeIfAbsent(task, t -> new ArrayList<>()).add(ip);
        }
        for (Map.Entry<String, List<InputPartition>> e : taskInputs.entrySet()) {
            Stage stage = stageOf.get(e.getKey());
            if (e.getValue().size() != stage.inputTopics().size()) {
                throw new IllegalStateException("the inputs " + stage.inputTopics() + " of task " + e.getKey()
                        + " are not assigned together (got " + e.getValue() + "): co-partitioning is broken");
            }
            e.getValue().sort(null);
        }
        // The checkpoint topic is read while the producers initialise: read_committed stops before
        // what a crashed predecessor left open, and the committed offsets read after the producers
        // tell whether that read is recent enough (else it is read again).
        long began = ctx.clock().getAsLong();
        long[] readTook = {-1};
        CheckpointReader reader = ctx.checkpoints();
        java.util.concurrent.CompletableFuture<Map<String, List<TaskCheckpoint>>> firstRead =
                new java.util.concurrent.CompletableFuture<>();
        Instance.named("weir-checkpoint-read")
                .newThread(() -> {
                    try {
                        var read = reader.history(
                                new TreeSet<>(taskInputs.keySet()), s.state().retain(), RESTORE_TIMEOUT);
                        readTook[0] = ctx.clock().getAsLong() - began; // before complete: seen by its reader
                        firstRead.complete(read);
                    } catch (Throwable t) {
                        firstRead.completeExceptionally(t);
                    }
                })
                .start();
        // Producers before the offsets: initialising them aborts what a crashed predecessor left
        // open, and until then its pending offsets would keep the committed offsets from resolving.
        EpochProducers ahead = null;
        if (s.exactlyOnce()) {
            producerSlots = ctx.producerSlots();
            firstSlot = producerSlots.acquire(CLEANING_WAIT);
            ahead = producerSlots.takeAhead(firstSlot); // the first execution's, initialised at start
        }
        producers = ahead != null
                ? ahead
                : s.exactlyOnce()
                        ? new TransactionalProducers(
                                ctx.clients(),
                                s.transactionalIdPrefix(),
                                firstSlot,
                                poolSize(s),
                                s.transactionTimeout().toMillis(),
                                s.checkpointTopic())
                        : new AtLeastOnceProducers(
                                ctx.clients(),
                                s.application() + "-" + s.instanceId(),
                                s.checkpointTopic(),
                                ctx.source()::commitOffsets);
        if (producers instanceof TransactionalProducers transactional) {
            Set<String> topics = new TreeSet<>();
            assigned.forEach(ip -> topics.add(ip.topic())); // the offsets each commit sends
            topics.add(s.checkpointTopic());
            s.outputs().forEach(o -> topics.add(o.name()));
            transactional.warmMetadata(topics);
        }
        long producersTook = ctx.clock().getAsLong() - began;
        giveUpIf(ended);
        Map<InputPartition, Long> committed = committedCheckpoints.read();
        long offsetsRead = ctx.clock().getAsLong() - began;
        Map<String, List<TaskCheckpoint>> history = readCheckpoints(ctx, reader, taskInputs, committed, firstRead);
        long checkpointsRead = ctx.clock().getAsLong() - began;
        giveUpIf(ended);
        Map<String, TaskCheckpoint> restored = new HashMap<>();
        history.forEach((task, h) -> restored.put(task, h.get(h.size() - 1)));
        long lastCompleted = restored.values().stream()
                .mapToLong(TaskCheckpoint::checkpointId)
                .max()
                .orElse(0);
        long firstEpoch = lastCompleted + 1;

        SnapshotRetention retention = new SnapshotRetention(s.state().retain(), ctx.snapshots(), ctx.housekeeping());
        history.forEach((task, h) ->
                retention.restored(task, h.stream().map(TaskCheckpoint::state).toList()));
        // Every file a store of this execution writes starts with task/generation/: see OrphanSweep.
        String generation = OrphanSweep.newGeneration(System.currentTimeMillis());
        coordinator = new CheckpointCoordinator(new CheckpointCoordinator.Setup(
                s.checkpoint(),
                taskInputs,
                lastCompleted,
                ctx.seams().checkpointIo().apply(io(ctx)),
                ctx.snapshots(),
                ctx.coordinatorLoop(),
                ctx.uploads(),
                ctx.committer(),
                ctx.clock(),
                listener(ctx, retention)));
        written = new WrittenEpochs(producers);
        TaskEnvironment env = new TaskEnvironment(
                s.exactlyOnce(),
                written,
                coordinator.acks(),
                ctx.clock(),
                ctx.counters(),
                ctx.limits(),
                TaskEnvironment.prepareSnapshotAfter(s.checkpoint().interval().toMillis()));
        producers.openEpoch(firstEpoch); // tasks write to it from their first record

        StoreOpening.open(ctx, taskInputs.keySet(), restored, generation, ended, stores);
        List<Task> tasks = new ArrayList<>();
        for (Map.Entry<String, List<InputPartition>> t : taskInputs.entrySet()) {
            TaskCheckpoint checkpoint = restored.get(t.getKey());
            StateStore store = stores.get(t.getKey());
            List<Channel> taskChannels = new ArrayList<>();
            for (InputPartition ip : t.getValue()) {
                Channel c = new Channel(taskChannels.size(), ip.toString(), s.channelCapacity());
                Stage.SideInput side = stageOf.get(t.getKey()).sideInput(ip.topic());
                if (side != null && side.table()) {
                    tables.add(ip);
                }
                taskChannels.add(c);
                channels.put(ip, c);
                if (checkpoint != null) {
                    Long position = checkpoint.positions().get(ip);
                    if (position == null) {
                        throw new IOException("checkpoint " + checkpoint.checkpointId() + " of " + t.getKey()
                                + " has no position for " + ip);
                    }
                    startPositions.put(ip, position);
                }
            }
            tasks.add(new Task(
                    stageOf.get(t.getKey()),
                    t.getValue().get(0).partition(),
                    taskChannels,
                    new KeyedState(store),
                    env,
                    firstEpoch));
        }
        long stateOpened = ctx.clock().getAsLong() - began;
        // Nothing runs before the instance's checks passed: a worker fires timers and moves
        // watermarks even without input.
        ctx.startGate().await();
        int threads = Math.max(1, Math.min(s.threads(), tasks.size()));
        List<List<Task>> perWorker = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            perWorker.add(new ArrayList<>());
        }
        for (int i = 0; i < tasks.size(); i++) {
            perWorker.get(i % threads).add(tasks.get(i));
        }
        for (int i = 0; i < threads; i++) {
            Worker w = new Worker("weir-worker-" + i, perWorker.get(i), failure -> ctx.source()
                    .fail(failure, this));
            workers.add(w);
            for (Task task : w.tasks()) {
                taskInputs.get(task.name()).forEach(ip -> workerOf.put(ip, w));
            }
        }
        for (Worker w : workers) {
            Instance.named(w.name()).newThread(w).start();
        }
        LOG.info(
                "restored {} tasks ({} from checkpoints, last completed checkpoint {}) in {} ms: producers ready"
                        + " after {} ms, committed offsets read after {} ms, checkpoint topic read after {} ms (its"
                        + " first read took {} ms), state opened after {} ms",
                tasks.size(),
                restored.size(),
                lastCompleted,
                ctx.clock().getAsLong() - began,
                producersTook,
                offsetsRead,
                checkpointsRead,
                readTook[0],
                stateOpened);
        Map<String, Set<String>> referenced = new HashMap<>();
        taskInputs.keySet().forEach(task -> referenced.put(task, retention.referenced(task)));
        sweep = new OrphanSweep(ctx.snapshots(), referenced, generation);
        ctx.housekeeping().execute(sweep);
    }

    static void giveUpIf(java.util.function.BooleanSupplier ended) {
        if (ended.getAsBoolean()) {
            throw new java.util.concurrent.CancellationException("the run was ended while it restored");
        }
    }

    /**
     * The latest checkpoints of every task. The committed offsets name the checkpoint they were
     * committed with; the checkpoint topic must hold at least that one, else it is read again (a
     * read that began before a predecessor's transaction was resolved, or a record committed a
     * moment ago, may not show it yet). {@code firstRead} is a read already under way.
     */
    private static Map<String, List<TaskCheckpoint>> readCheckpoints(
            Context ctx,
            CheckpointReader reader,
            Map<String, List<InputPartition>> taskInputs,
            Map<InputPartition, Long> committedCheckpoints,
            java.util.concurrent.CompletableFuture<Map<String, List<TaskCheckpoint>>> firstRead)
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

    private CheckpointIo io(Context ctx) {
        Execution self = this;
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
                                self);
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

    private CheckpointListener listener(Context ctx, SnapshotRetention retention) {
        return new CheckpointListener() {
            @Override
            public void triggered(long checkpointId, long startedAt) {
                ctx.events().checkpointTriggered(checkpointId, startedAt);
            }

            @Override
            public void skipped(long checkpointId) {
                ctx.events().checkpointSkipped(checkpointId);
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
                ctx.source().fail(cause, Execution.this);
            }
        };
    }

    /**
     * Runs {@code abort} on a thread of its own, waiting for it at most {@code wait}. With the broker
     * unreachable an abort blocks for the producer's {@code max.block.ms} (60 s) per transaction,
     * and the source loop, which stops executions, would block with it: no polling, no failover of
     * other runs, minutes before this run restarts. An abort still running after that goes on alone
     * until the producers it uses are closed (for the producers of a normal stop: right after this
     * returns; for fresh producers of a stuck worker's slots: when it is done): an open transaction
     * it does not reach is aborted when its transactional id is initialised again, or by the broker
     * after the transaction timeout. Whether {@code abort} ended within {@code wait}.
     */
    private boolean runWithin(Duration wait, Runnable abort) {
        Thread aborting = new Thread(abort, "weir-abort");
        aborting.setDaemon(true);
        aborting.start();
        try {
            aborting.join(wait.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (aborting.isAlive()) {
            LOG.warn(
                    "the open transactions were not aborted within {} ms (is the broker reachable?); the next"
                            + " producers with these transactional ids abort them, else the broker after {} ms",
                    wait.toMillis(),
                    context.settings().transactionTimeout().toMillis());
            return false;
        }
        return true;
    }

    /** What restoring this execution's stores took, summed over its tasks. */
    RestoreSizes restoreSizes() {
        RestoreSizes sum = RestoreSizes.NONE;
        for (StateStore store : stores.values()) {
            sum = sum.plus(store.restoreSizes());
        }
        return sum;
    }

    @Override
    public java.util.concurrent.CompletableFuture<Void> drain() {
        return coordinator.drain();
    }

    @Override
    public void started() {
        coordinator.start();
    }

    @Override
    public void checkpointSoon() {
        coordinator.triggerNow();
    }

    @Override
    public boolean written(long epoch) {
        return written != null && written.written(epoch);
    }

    @Override
    public void closing(long epoch) {
        if (written != null) {
            written.closing(epoch);
        }
    }

    @Override
    public Map<InputPartition, Channel> channels() {
        return channels;
    }

    @Override
    public Map<InputPartition, Long> startPositions() {
        return startPositions;
    }

    @Override
    public boolean readsFromBeginning(InputPartition partition) {
        return tables.contains(partition);
    }

    @Override
    public void wake(InputPartition partition) {
        Worker w = workerOf.get(partition);
        if (w != null) {
            w.wake();
        }
    }

    /**
     * Stops in the order that keeps exactly-once: no new checkpoint and no new upload; the commit in
     * flight finishes (or fails, or is left after {@code COMMIT_WAIT}); workers stop; the open
     * transactions are aborted (when a worker hangs in a send, by fresh producers with the same
     * transactional ids); producers close; state is released. No step waits long for an unreachable
     * broker: an abort still running after {@code ABORT_WAIT} goes on alone ({@link #runWithin}).
     */
    @Override
    public void stop() {
        if (sweep != null) {
            sweep.cancel(); // the tasks may go to another execution, whose files it must not touch
        }
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
        workers.forEach(Worker::requestStop);
        boolean allStopped = awaitWorkers(WORKER_STOP_TIMEOUT);
        if (!allStopped) {
            LOG.warn(
                    "a worker did not stop within {} ms (waiting for the broker in a send or flush?); its"
                            + " transactions are aborted by fresh producers with the same ids",
                    WORKER_STOP_TIMEOUT.toMillis());
        }
        // Producers whose open transactions all ended in an abort serve the next execution on the
        // block (a restart after a rebalance or a failover) as they are: no initialisation.
        boolean keep = false;
        if (producers != null) {
            if (allStopped) {
                EpochProducers p = producers;
                AtomicBoolean aborted = new AtomicBoolean();
                boolean ended = runWithin(ABORT_WAIT, () -> aborted.set(p.abortOpen())); // closing ends it
                keep = ended && aborted.get() && commitEnded && producers instanceof TransactionalProducers;
            }
            if (!keep) {
                producers.close(); // also unblocks a worker still waiting in flush or send
            }
        }
        awaitWorkers(null);
        stores.values().forEach(StateStore::close);
        if (firstSlot >= 0) {
            int first = firstSlot;
            firstSlot = -1;
            if (allStopped) {
                if (keep) {
                    producerSlots.keep(first, producers);
                }
                producerSlots.release(first);
            } else {
                // Its open transactions were not aborted: the partitions may go to another member,
                // which would wait for them until the transaction timeout. Fence and abort them now;
                // a new execution of this instance takes the block over (ProducerSlots.acquire) and
                // aborts the rest by initialising its own producers with these ids.
                InstanceSettings s = context.settings();
                ProducerSlots.Cleaning cleaning = producerSlots.cleaning(first);
                runWithin(ABORT_WAIT, () -> {
                    try {
                        for (int slot = first; slot < first + poolSize(s) && !cleaning.takenOver(); slot++) {
                            try {
                                TransactionalProducers.abortLeftover(
                                        context.clients(),
                                        s.transactionalIdPrefix() + slot,
                                        s.transactionTimeout().toMillis());
                            } catch (RuntimeException e) {
                                LOG.warn("aborting the transaction of slot {} failed: {}", slot, e.toString());
                            }
                        }
                    } finally {
                        cleaning.done();
                    }
                });
            }
        }
    }

    /** Waits for the workers, at most {@code timeout} (null: as long as it takes). */
    private boolean awaitWorkers(Duration timeout) {
        for (Worker w : workers) {
            try {
                if (timeout == null) {
                    w.awaitStopped();
                } else if (!w.awaitStopped(timeout)) {
                    return false;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
