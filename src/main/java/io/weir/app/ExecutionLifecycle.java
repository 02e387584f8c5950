package io.weir.app;

import io.weir.dataflow.Stage;
import io.weir.element.InputPartition;
import io.weir.kafka.PartitionCounts;
import io.weir.kafka.SourceLoop;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The instance's side of its source loop: starts an {@link Execution} for the partitions the group
 * assigns, refuses an assignment beyond the partition counts the instance started with, and reports
 * assignments, restores and failovers to the {@link Instance.Stats} and the listeners.
 */
final class ExecutionLifecycle implements SourceLoop.Lifecycle {
    private final InstanceSettings settings;
    private final Instance.Stats stats;
    private final InstanceEvents events;
    private final LongSupplier clock;
    /**
     * The partition counts of every stage's inputs at the start: the group's leader refuses to assign
     * under other counts, and this member refuses a partition beyond them (read on the source thread).
     */
    private final Map<String, Integer> startCounts;
    /** Reads the group's committed offsets for restores. */
    private final CommittedOffsets committedOffsets;
    /** What each execution is built from, made as it starts. */
    private final Supplier<Execution.Context> context;
    /** The next execution replaces one that failed. */
    private final AtomicBoolean failedOver = new AtomicBoolean();

    ExecutionLifecycle(
            InstanceSettings settings,
            Instance.Stats stats,
            InstanceEvents events,
            LongSupplier clock,
            Map<String, Integer> startCounts,
            CommittedOffsets committedOffsets,
            Supplier<Execution.Context> context) {
        this.settings = settings;
        this.stats = stats;
        this.events = events;
        this.clock = clock;
        this.startCounts = startCounts;
        this.committedOffsets = committedOffsets;
        this.context = context;
    }

    @Override
    public SourceLoop.Execution start(Set<InputPartition> assigned, BooleanSupplier ended) throws Exception {
        return startExecution(assigned, ended, () -> committedOffsets.checkpoints(assigned));
    }

    @Override
    public void failedOver(Throwable cause) {
        stats.failovers.incrementAndGet();
        stats.notRunning = "failing over after: " + cause;
        failedOver.set(true);
        events.failedOver(cause);
    }

    @Override
    public void assigned(Set<InputPartition> partitions) {
        String beyond = PartitionCounts.beyond(partitions, startCounts);
        if (beyond != null) {
            throw new SourceLoop.FatalException(beyond, null);
        }
        stats.rebalances.incrementAndGet();
        if (partitions.isEmpty()) {
            stats.notRunning = null; // a member with nothing assigned runs nothing
        }
        Set<String> names = new TreeSet<>();
        partitions.forEach(p -> names.add(p.toString()));
        events.assigned(names);
    }

    private SourceLoop.Execution startExecution(
            Set<InputPartition> assigned, BooleanSupplier ended, Execution.CommittedCheckpoints committedCheckpoints)
            throws Exception {
        Set<String> names = new TreeSet<>();
        for (InputPartition ip : assigned) {
            Stage stage = settings.stageReading(ip.topic());
            names.add(stage == null ? ip.toString() : stage.taskName(ip.partition()));
        }
        List<String> tasks = List.copyOf(names);
        stats.notRunning = "restoring tasks " + String.join(", ", tasks);
        if (failedOver.getAndSet(false)) {
            stats.restarts.incrementAndGet();
        }
        events.restoring(tasks);
        long started = clock.getAsLong();
        Execution execution = Execution.start(context.get(), assigned, committedCheckpoints, ended);
        stats.notRunning = null;
        events.restored(tasks, clock.getAsLong() - started, execution.restoreSizes());
        return execution;
    }
}
