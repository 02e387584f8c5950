package io.weir.app;

import io.weir.checkpoint.CheckpointCoordinator;
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
import io.weir.kafka.CheckpointReader;
import io.weir.kafka.EpochProducers;
import io.weir.kafka.KafkaClients;
import io.weir.kafka.SourceLoop;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
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
    private static final Duration WORKER_STOP_TIMEOUT = Duration.ofSeconds(10);

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
    private ProducerPool pool;
    private WrittenEpochs written;
    private ExecutionCheckpoints checkpoints;
    private CheckpointCoordinator coordinator;
    private OrphanSweep sweep;

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
        checkpoints = new ExecutionCheckpoints(ctx, this, taskInputs);
        checkpoints.startRead(began);
        // Producers before the offsets: initialising them aborts what a crashed predecessor left
        // open, and until then its pending offsets would keep the committed offsets from resolving.
        pool = new ProducerPool(ctx);
        pool.open(assigned);
        EpochProducers producers = pool.producers();
        long producersTook = ctx.clock().getAsLong() - began;
        giveUpIf(ended);
        Map<InputPartition, Long> committed = committedCheckpoints.read();
        long offsetsRead = ctx.clock().getAsLong() - began;
        Map<String, List<TaskCheckpoint>> history = checkpoints.history(committed);
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
        coordinator = checkpoints.newCoordinator(lastCompleted, producers, stores, retention);
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
                checkpoints.firstReadTook(),
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
     * flight finishes (or fails, or is left after {@code ExecutionCheckpoints.COMMIT_WAIT}); workers
     * stop; the open transactions are aborted (when a worker hangs in a send, by fresh producers with
     * the same transactional ids); producers close; state is released. No step waits long for an
     * unreachable broker: an abort still running after {@code ProducerPool.ABORT_WAIT} goes on alone
     * ({@code ProducerPool.runWithin}).
     */
    @Override
    public void stop() {
        if (sweep != null) {
            sweep.cancel(); // the tasks may go to another execution, whose files it must not touch
        }
        boolean commitEnded = checkpoints == null || checkpoints.stop();
        workers.forEach(Worker::requestStop);
        boolean allStopped = awaitWorkers(WORKER_STOP_TIMEOUT);
        if (!allStopped) {
            LOG.warn(
                    "a worker did not stop within {} ms (waiting for the broker in a send or flush?); its"
                            + " transactions are aborted by fresh producers with the same ids",
                    WORKER_STOP_TIMEOUT.toMillis());
        }
        boolean keep = pool != null && pool.abortOpen(allStopped, commitEnded);
        awaitWorkers(null);
        stores.values().forEach(StateStore::close);
        if (pool != null) {
            pool.release(allStopped, keep);
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
