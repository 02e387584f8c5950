package io.weir.app;

import io.weir.checkpoint.CheckpointStats;
import io.weir.checkpoint.FailureReason;
import io.weir.state.RestoreSizes;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * What an {@link Instance} tells its observers (metrics, the checkpoint history behind the HTTP
 * endpoint). Every method has an empty default; observers are registered before
 * {@link Instance#start()} and called on the instance's own threads (source loop, coordinator), so
 * they must be quick and thread-safe.
 */
public interface InstanceEvents {
    /** The source consumer was created; it lives as long as the instance. */
    default void sourceConsumer(Consumer<?, ?> consumer) {}

    /** The group assigned these input partitions (a rebalance). */
    default void assigned(Set<String> partitions) {}

    /** An execution starts restoring these tasks. */
    default void restoring(List<String> tasks) {}

    /** The tasks were restored in {@code millis}, from local files and downloads as {@code sizes} says, and run. */
    default void restored(List<String> tasks, long millis, RestoreSizes sizes) {}

    /** The execution failed and will be replaced by a new one after the restart delay. */
    default void failedOver(Throwable cause) {}

    /**
     * A standby round brought the warm copies of {@code tasks} up to their latest checkpoints,
     * keeping and downloading as {@code sizes} says (processing.standby).
     */
    default void standbyFollowed(Set<String> tasks, RestoreSizes sizes) {}

    default void checkpointTriggered(long checkpointId, long startedAt) {}

    /** See {@link io.weir.checkpoint.CheckpointListener#skipped}. */
    default void checkpointSkipped(long checkpointId, boolean idle) {}

    default void checkpointCompleted(CheckpointStats stats) {}

    /**
     * After a completed checkpoint: per task, its state backend's size figures as sampled at the
     * checkpoint's synchronous part ({@link io.weir.state.StateStore#sampledProperties}).
     */
    default void stateSampled(Map<String, Map<String, Long>> properties) {}

    default void checkpointFailed(long checkpointId, FailureReason reason, Throwable cause) {}

    /** Calls every one of {@code listeners}, in order. */
    static InstanceEvents all(List<InstanceEvents> listeners) {
        List<InstanceEvents> copy = List.copyOf(listeners);
        return new InstanceEvents() {
            @Override
            public void sourceConsumer(Consumer<?, ?> consumer) {
                copy.forEach(l -> l.sourceConsumer(consumer));
            }

            @Override
            public void assigned(Set<String> partitions) {
                copy.forEach(l -> l.assigned(partitions));
            }

            @Override
            public void restoring(List<String> tasks) {
                copy.forEach(l -> l.restoring(tasks));
            }

            @Override
            public void restored(List<String> tasks, long millis, RestoreSizes sizes) {
                copy.forEach(l -> l.restored(tasks, millis, sizes));
            }

            @Override
            public void standbyFollowed(Set<String> tasks, RestoreSizes sizes) {
                copy.forEach(l -> l.standbyFollowed(tasks, sizes));
            }

            @Override
            public void failedOver(Throwable cause) {
                copy.forEach(l -> l.failedOver(cause));
            }

            @Override
            public void checkpointTriggered(long checkpointId, long startedAt) {
                copy.forEach(l -> l.checkpointTriggered(checkpointId, startedAt));
            }

            @Override
            public void checkpointSkipped(long checkpointId, boolean idle) {
                copy.forEach(l -> l.checkpointSkipped(checkpointId, idle));
            }

            @Override
            public void checkpointCompleted(CheckpointStats stats) {
                copy.forEach(l -> l.checkpointCompleted(stats));
            }

            @Override
            public void stateSampled(Map<String, Map<String, Long>> properties) {
                copy.forEach(l -> l.stateSampled(properties));
            }

            @Override
            public void checkpointFailed(long checkpointId, FailureReason reason, Throwable cause) {
                copy.forEach(l -> l.checkpointFailed(checkpointId, reason, cause));
            }
        };
    }
}
