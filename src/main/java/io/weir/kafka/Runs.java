package io.weir.kafka;

import io.weir.checkpoint.RestartStrategy;
import io.weir.element.InputPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of this instance's {@link Run runs}: the group's rebalance callbacks start and end them
 * (cooperative, see {@link CoPartitionedAssignor}: a rebalance ends only the runs whose partitions
 * it takes away), a new run's execution is restored on the restore thread while its partitions stay
 * paused, then installed on the source loop's thread (seeked to its restored positions, handed to
 * {@link Feeds}, resumed); a failure fails a run over — stop, wait as the restart strategy says,
 * restore again from the last completed checkpoints.
 *
 * <p>Threading: the source loop's thread only (the rebalance callbacks run inside its poll), except
 * the restore task, which hands its result back through {@code toLoop}, and the volatile readiness
 * flags, which any thread may read.
 */
final class Runs implements ConsumerRebalanceListener {
    private static final Logger LOG = LoggerFactory.getLogger(Runs.class);
    /**
     * Commits lost to a rebalance ({@link Failures#lostToARebalance}) restored at once, without the
     * restart strategy's delay, before one counts as an ordinary failure: per instance, between two
     * completed checkpoints of any run. A join bumps the generation twice (cooperative: revoke, then
     * assign), and each bump may catch a commit in flight. With {@code restart: none} every failure
     * stops the job, these too.
     */
    static final int IMMEDIATE_RACES = 3;

    private final Consumer<byte[], byte[]> consumer;
    private final Feeds feeds;
    private final Lag lag;
    private final SourceLoop.Lifecycle lifecycle;
    private final RestartStrategy restart;
    private final boolean resetToEarliest;
    private final LongSupplier clock;
    /** Restores runs one after the other: a run ended while restoring stops what it built before the next starts. */
    private final ExecutorService restorer;
    /** Runs a command on the source loop's thread, after its current poll. */
    private final java.util.function.Consumer<Runnable> toLoop;

    private final List<Run> runs = new ArrayList<>();
    private volatile boolean ready;
    private volatile boolean assignedNothing;
    /** Holds commits while this member rejoins the group, and the generation its callbacks publish. */
    private final RebalanceHold hold;
    /** Set by a graceful stop: nothing new starts, and the consumer leaves the group when it closes. */
    private boolean draining;
    /** Commits lost to a rebalance since the last completed checkpoint. */
    private int racesInARow;

    Runs(
            Consumer<byte[], byte[]> consumer,
            Feeds feeds,
            Lag lag,
            SourceLoop.Lifecycle lifecycle,
            RestartStrategy restart,
            boolean resetToEarliest,
            LongSupplier clock,
            ExecutorService restorer,
            java.util.function.Consumer<Runnable> toLoop,
            RebalanceHold hold) {
        this.consumer = consumer;
        this.hold = hold;
        this.feeds = feeds;
        this.lag = lag;
        this.lifecycle = lifecycle;
        this.restart = restart;
        this.resetToEarliest = resetToEarliest;
        this.clock = clock;
        this.restorer = restorer;
        this.toLoop = toLoop;
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        hold.rebalanced(consumer.groupMetadata()); // commits take the new generation
        if (!partitions.isEmpty()) {
            LOG.info("partitions revoked: {}", partitions);
            takeAway(partitions);
        }
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        hold.rebalanced(consumer.groupMetadata()); // commits take the new generation
        LOG.warn("partitions lost: {}", partitions);
        takeAway(partitions);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        hold.rebalanced(consumer.groupMetadata()); // commits take the new generation
        Set<TopicPartition> all = consumer.assignment();
        if (!partitions.isEmpty()) {
            LOG.info("partitions assigned: {} (now {})", partitions, all);
        }
        Set<InputPartition> inputs = new HashSet<>();
        all.forEach(tp -> inputs.add(Run.input(tp)));
        lifecycle.assigned(inputs);
        assignedNothing = all.isEmpty();
        if (!partitions.isEmpty()) {
            consumer.pause(partitions); // until their run is restored
            if (!draining) {
                Run run = new Run(new HashSet<>(partitions));
                runs.add(run);
                restore(run);
            }
        }
        updateReady();
    }

    /** The runs, in the order they started. */
    List<Run> list() {
        return Collections.unmodifiableList(runs);
    }

    /** The running run of {@code execution}, or null when it no longer runs. */
    Run running(SourceLoop.Execution execution) {
        for (Run run : runs) {
            if (run.state == Run.State.RUNNING && run.execution == execution) {
                return run;
            }
        }
        return null;
    }

    /** Fails the run of {@code execution} over, if it still runs. */
    void fail(SourceLoop.Execution execution, Throwable cause) {
        Run run = running(execution);
        if (run != null) {
            failover(run, cause);
        }
    }

    /** A checkpoint completed: failures in a row start over. */
    void progress() {
        restart.onProgress();
        racesInARow = 0;
    }

    /** Restores the runs whose restart delay is over, as a new run of the same partitions. */
    void restartDue() {
        if (draining) {
            return;
        }
        long now = clock.getAsLong();
        for (Run run : List.copyOf(runs)) {
            if (run.state == Run.State.WAITING_TO_RESTART && now >= run.restartAt) {
                runs.remove(run);
                Run again = new Run(run.partitions);
                runs.add(again);
                restore(again);
            }
        }
    }

    /**
     * A graceful stop: nothing new starts; runs not running yet end (they have nothing to commit),
     * the running ones drain. Returns their drains, each completing normally also when it failed.
     */
    List<CompletableFuture<Void>> drain() {
        draining = true;
        List<CompletableFuture<Void>> drains = new ArrayList<>();
        for (Run run : List.copyOf(runs)) {
            if (run.state == Run.State.RUNNING) {
                drains.add(run.execution.drain().exceptionally(failure -> null));
            } else {
                end(run);
                runs.remove(run);
            }
        }
        return drains;
    }

    boolean draining() {
        return draining;
    }

    /** Ends every run and waits for a restore in progress, which stops what it built. */
    void close() {
        ready = false;
        for (Run run : runs) {
            end(run);
        }
        runs.clear();
        restorer.shutdown();
        try {
            if (!restorer.awaitTermination(2, TimeUnit.MINUTES)) {
                LOG.warn("a restore did not finish within 2 minutes of the stop");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether every assigned partition's tasks are restored and running (or nothing is assigned). */
    boolean ready() {
        return ready;
    }

    /** Whether the last assignment was empty: this member runs no task. */
    boolean assignedNothing() {
        return assignedNothing;
    }

    /**
     * Ends the runs holding any of {@code partitions} before the group gives them to another member
     * (their open transactions are aborted, so the new owner waits for nothing); the partitions
     * such a run keeps start a new run. Runs not touched go on.
     */
    private void takeAway(Collection<TopicPartition> partitions) {
        Set<TopicPartition> gone = new HashSet<>(partitions);
        for (Run run : List.copyOf(runs)) {
            if (!run.overlaps(gone)) {
                continue;
            }
            end(run);
            runs.remove(run);
            Set<TopicPartition> kept = new HashSet<>(run.partitions);
            kept.removeAll(gone);
            if (!kept.isEmpty() && !draining) {
                Run rest = new Run(kept);
                runs.add(rest);
                restore(rest);
            }
        }
        updateReady();
    }

    /** Starts restoring {@code run} on the restore thread; its partitions stay paused meanwhile. */
    private void restore(Run run) {
        run.state = Run.State.RESTORING;
        ready = false;
        Set<InputPartition> inputs = run.inputs();
        restorer.execute(() -> {
            if (run.cancelled()) {
                return;
            }
            SourceLoop.Execution built = null;
            Throwable failure = null;
            try {
                built = lifecycle.start(inputs, run::cancelled);
            } catch (Throwable t) {
                failure = t;
            }
            if (built != null && !run.handOver(built)) {
                built.stop(); // ended while restoring: nothing of it ran
                return;
            }
            Throwable f = failure;
            toLoop.accept(() -> restored(run, f));
        });
    }

    /** Installs a restored run: seeks its partitions to the restored positions and resumes them. */
    private void restored(Run run, Throwable failure) {
        if (run.state != Run.State.RESTORING || run.cancelled()) {
            return; // ended meanwhile; end() stopped what was handed over
        }
        if (failure != null) {
            failover(run, failure);
            return;
        }
        SourceLoop.Execution execution = run.takeRestored();
        run.execution = execution;
        run.state = Run.State.RUNNING;
        try {
            feeds.start(run, execution, resetToEarliest);
            if (!draining) {
                consumer.resume(run.partitions);
            }
            execution.started();
            lag.soon(); // its partitions' lag is known from now on
            LOG.info("running {} partitions from {}", run.partitions.size(), feeds.positions(run));
        } catch (SourceLoop.FatalException e) {
            throw e;
        } catch (Exception e) {
            failover(run, e);
        }
        updateReady();
    }

    /** Ends {@code run}: stops its execution (or cancels its restore) and pauses its partitions. */
    private void end(Run run) {
        Run.State was = run.state;
        run.state = Run.State.ENDED;
        run.held = null;
        feeds.removeAll(run.partitions);
        Set<TopicPartition> assigned = new HashSet<>(run.partitions);
        assigned.retainAll(consumer.assignment());
        consumer.pause(assigned);
        if (was == Run.State.RUNNING) {
            // The stop waits for the run's commit in flight, which must not wait for a rebalance
            // that this thread, stopping, does not drive on. The other runs' held commits go on
            // too, with the generation at hand (the committer is one thread: one of them may be
            // ahead of this run's); one the rebalance overtakes fails its run over, as without the
            // hold. Only a failover or a stop during a rejoin comes here with the hold on.
            hold.rebalanced();
            SourceLoop.Execution e = run.execution;
            run.execution = null;
            e.stop();
        } else if (was == Run.State.RESTORING) {
            SourceLoop.Execution restoredNotInstalled = run.cancel();
            if (restoredNotInstalled != null) {
                restoredNotInstalled.stop();
            }
        }
    }

    /** Ends {@code run} and schedules its restart, or throws when no restart can help. */
    private void failover(Run run, Throwable cause) {
        if (Failures.isFatal(cause)) {
            throw new SourceLoop.FatalException("cannot go on: " + cause + Failures.hint(cause), cause);
        }
        end(run);
        Optional<Duration> delay =
                Failures.lostToARebalance(cause) && restart.restarts() && racesInARow++ < IMMEDIATE_RACES
                        ? Optional.of(Duration.ZERO) // the next checkpoint commits with the new generation
                        : restart.onFailure(clock.getAsLong());
        if (delay.isEmpty()) {
            throw new SourceLoop.FatalException("restart strategy gave up after: " + cause, cause);
        }
        LOG.warn(
                "failing over {} in {} ms after: {}",
                run.partitions,
                delay.get().toMillis(),
                cause.toString(),
                cause);
        lifecycle.failedOver(cause);
        run.state = Run.State.WAITING_TO_RESTART;
        run.restartAt = clock.getAsLong() + delay.get().toMillis();
        ready = false;
    }

    private void updateReady() {
        boolean all = true;
        for (Run run : runs) {
            all &= run.state == Run.State.RUNNING;
        }
        ready = all && (assignedNothing || !runs.isEmpty());
    }
}
