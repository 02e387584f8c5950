package io.weir.ops;

import io.weir.app.Instance;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The readiness rule of {@code /health/ready}: every assigned task is restored and running, and
 * checkpointing works — a checkpoint completed (or was skipped because nothing new was read, while
 * no earlier checkpoint of its execution was in flight) within
 * the last {@value #INTERVALS} checkpoint intervals, at least {@link #MIN_WINDOW}. A member that the
 * group assigned no partition is ready: a StatefulSet with more replicas than partitions must still
 * finish its rollout.
 */
public final class Readiness {
    static final int INTERVALS = 3;
    static final Duration MIN_WINDOW = Duration.ofSeconds(5);

    /** What the rule reads of an instance. */
    interface Tasks {
        boolean stopped();

        boolean running();

        /** Why the tasks do not run, or null. */
        String notRunning();

        /**
         * A group member that was assigned no partition (more replicas than partitions): it has
         * nothing to restore or checkpoint and is ready as it is.
         */
        boolean noTasks();

        static Tasks of(Instance instance) {
            return new Tasks() {
                @Override
                public boolean stopped() {
                    return instance.stopped();
                }

                @Override
                public boolean running() {
                    return instance.ready();
                }

                @Override
                public String notRunning() {
                    return instance.stats().notRunning();
                }

                @Override
                public boolean noTasks() {
                    return instance.assignedNothing();
                }
            };
        }
    }

    private final Tasks tasks;
    private final CheckpointHistory history;
    private final LongSupplier clock;
    private final long windowMillis;

    public Readiness(Instance instance, CheckpointHistory history, LongSupplier clock) {
        this(Tasks.of(instance), instance.settings().checkpoint().interval(), history, clock);
    }

    Readiness(Tasks tasks, Duration checkpointInterval, CheckpointHistory history, LongSupplier clock) {
        this.tasks = tasks;
        this.history = history;
        this.clock = clock;
        this.windowMillis = Math.max(MIN_WINDOW.toMillis(), INTERVALS * checkpointInterval.toMillis());
    }

    /** Why the instance is not ready, or empty when it is. */
    public Optional<String> notReadyReason() {
        if (tasks.stopped()) {
            return Optional.of("stopped");
        }
        if (!tasks.running()) {
            String why = tasks.notRunning();
            return Optional.of(why == null ? "starting the restored tasks" : why);
        }
        if (tasks.noTasks()) {
            return Optional.empty();
        }
        long settled = history.lastSettledAt();
        if (settled < 0) {
            return Optional.of("no checkpoint completed yet");
        }
        long now = clock.getAsLong();
        long age = now - settled;
        if (age <= windowMillis) {
            return Optional.empty();
        }
        long completed = history.lastCompletedAt();
        if (completed >= settled) {
            return Optional.of("no checkpoint completed for " + age + " ms (more than " + windowMillis + " ms)");
        }
        // Settled last by a skip on idle input: say both, so the number is the completion's age.
        return Optional.of((completed < 0
                        ? "no checkpoint completed yet"
                        : "no checkpoint completed for " + (now - completed) + " ms")
                + " and none skipped on idle input for " + age + " ms (more than " + windowMillis + " ms)");
    }
}
