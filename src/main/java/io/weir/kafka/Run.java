package io.weir.kafka;

import io.weir.element.InputPartition;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * The life of one group of partitions assigned together on this instance: restoring its execution
 * on the restore thread, running it, or waiting to restart it after a failure. A rebalance that
 * moves partitions ends the runs holding them (the partitions they keep start a new run); the other
 * runs go on. Fields are the source loop thread's, except where said.
 */
final class Run {
    enum State {
        RESTORING,
        RUNNING,
        WAITING_TO_RESTART,
        ENDED
    }

    final Set<TopicPartition> partitions;
    State state;
    SourceLoop.Execution execution;
    long restartAt;
    long recordsSinceBarrier;
    /** Whether a barrier went in since the execution started; the first may be held. */
    boolean injectedSinceStart;
    /** A first barrier waiting for the execution's first input. */
    HeldBarrier held;
    /**
     * Set when the run ends while its restore runs; the restore thread then stops what it built.
     * Guarded by {@code this}, with {@link #restored}.
     */
    private boolean cancelled;
    /** An execution the restore thread finished, not yet installed by the loop; guarded by {@code this}. */
    private SourceLoop.Execution restored;

    record HeldBarrier(long checkpointId, SourceLoop.InjectionReceiver receiver, long until) {}

    Run(Set<TopicPartition> partitions) {
        this.partitions = Set.copyOf(partitions);
    }

    Set<InputPartition> inputs() {
        Set<InputPartition> inputs = new HashSet<>();
        partitions.forEach(tp -> inputs.add(input(tp)));
        return inputs;
    }

    static InputPartition input(TopicPartition tp) {
        return new InputPartition(tp.topic(), tp.partition());
    }

    /** Restore thread: hands the restored execution over, or returns false when the run ended meanwhile. */
    synchronized boolean handOver(SourceLoop.Execution execution) {
        if (cancelled) {
            return false;
        }
        restored = execution;
        return true;
    }

    /** Loop thread: takes the restored execution for installing (null when there is none). */
    synchronized SourceLoop.Execution takeRestored() {
        SourceLoop.Execution e = restored;
        restored = null;
        return e;
    }

    /**
     * Loop thread: ends a restoring run. Returns an execution restored but not yet installed, which
     * the caller stops; a restore still running sees the cancellation and stops its own.
     */
    synchronized SourceLoop.Execution cancel() {
        cancelled = true;
        SourceLoop.Execution e = restored;
        restored = null;
        return e;
    }

    synchronized boolean cancelled() {
        return cancelled;
    }

    boolean overlaps(Set<TopicPartition> others) {
        for (TopicPartition tp : others) {
            if (partitions.contains(tp)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "run " + new java.util.TreeSet<>(inputs()) + " " + state;
    }
}
