package io.weir.kafka;

import io.weir.checkpoint.RestartStrategy;
import io.weir.dataflow.Channel;
import io.weir.element.InputPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The source loop: the only thread that touches the consumer. It polls and hands records over
 * ({@link Feeds}), injects barriers on the coordinators' requests, and runs the life of the
 * {@link Run runs} — one per group of partitions assigned together: a rebalance (cooperative, see
 * {@link CoPartitionedAssignor}) ends only the runs whose partitions it takes away, and a new
 * assignment starts a run whose execution is restored on the restore thread while its partitions
 * stay paused and this loop keeps polling. A failure fails over the run it happened in: stop, wait
 * as the restart strategy says, restore again from the last completed checkpoints.
 *
 * <p>Threading: {@link #run} is the owner thread. Other threads talk to it only through
 * {@link #inject}, {@link #commitOffsets}, {@link #fail}, {@link #progress} and the shutdowns,
 * which queue a command and wake the consumer.
 */
public final class SourceLoop implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(SourceLoop.class);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final long FIRST_BARRIER_HOLD_MS = 250;

    /** Builds executions; implemented by the composition root. */
    public interface Lifecycle {
        /**
         * Restores the tasks of {@code partitions} and starts them. Runs on the restore thread,
         * never on the source loop's, so it must not touch the source consumer.
         */
        Execution start(Set<InputPartition> partitions) throws Exception;

        /** The loop stopped an execution after {@code cause} and will start it again after a delay. */
        default void failedOver(Throwable cause) {}

        /** The group changed this member's assignment; {@code partitions} is all of it (each rebalance). */
        default void assigned(Set<InputPartition> partitions) {}
    }

    /** A running set of tasks, as the source loop sees it. */
    public interface Execution {
        Map<InputPartition, Channel> channels();

        /** Where each partition resumes (the restored Sk); absent: the configured offset reset. */
        Map<InputPartition, Long> startPositions();

        /** Whether a partition without a start position is read from its beginning whatever the reset (a table). */
        default boolean readsFromBeginning(InputPartition partition) {
            return false;
        }

        /** Wakes the worker that reads the channel of {@code partition}. */
        void wake(InputPartition partition);

        /**
         * Whether a task wrote to {@code epoch} (timers, idleness, watermark markers): then barrier
         * {@code epoch} is injected even without new input, so its transaction commits.
         */
        default boolean written(long epoch) {
            return false;
        }

        /** Barrier {@code epoch} was injected. */
        default void closing(long epoch) {}

        /** The loop installed this execution and seeked its partitions: checkpoints may begin. */
        void started();

        /**
         * Asks for a checkpoint now rather than at the next interval: the first epoch is full and
         * the records read behind it wait for its barrier.
         */
        default void checkpointSoon() {}

        /**
         * Checkpoints until everything handed to the channels so far is committed (the source
         * loop stopped reading); completes exceptionally when a checkpoint fails.
         */
        CompletableFuture<Void> drain();

        /** Stops tasks, coordinator and producers; returns when nothing of it runs any more. */
        void stop();
    }

    /** Where barrier injections are answered; one per execution's coordinator. */
    public interface InjectionReceiver {
        /**
         * Barrier {@code checkpointId} went in at {@code positions}; {@code fencingToken} supplies the
         * group metadata to commit them with (read it when committing).
         */
        void injected(long checkpointId, Map<InputPartition, Long> positions, Object fencingToken);

        void skipped(long checkpointId);
    }

    /** An error no restart can fix (fenced by a newer instance, restart attempts exhausted). */
    public static final class FatalException extends RuntimeException {
        public FatalException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final Consumer<byte[], byte[]> consumer;
    private final List<String> topics;
    private final Lifecycle lifecycle;
    private final RestartStrategy restart;
    private final boolean resetToEarliest;
    private final LongSupplier clock;
    /** Restores runs one after the other: a run ended while restoring stops what it built before the next starts. */
    private final ExecutorService restorer;

    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final Feeds feeds;
    private final List<Run> runs = new ArrayList<>();
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile Map<InputPartition, Long> lag = Map.of();
    private volatile boolean running = true;
    private volatile boolean ready;
    private volatile boolean assignedNothing;
    private volatile Throwable fatal;
    private long nextLagUpdate;
    /**
     * The group metadata of the current generation, published by the loop after each assignment.
     * A checkpoint commits its offsets with the metadata current at commit time, not at its
     * barrier: a rebalance in between (another member joining or leaving) bumps the generation, and
     * the old one would fail the commit of a run that still owns its partitions. A run whose
     * partitions were revoked or lost was stopped before the new generation is published here.
     */
    private volatile ConsumerGroupMetadata groupMetadata;

    private final Supplier<ConsumerGroupMetadata> currentGroupMetadata = () -> groupMetadata;
    /** Set by a graceful stop: nothing more is read, and the consumer leaves the group when it closes. */
    private boolean draining;

    private long drainDeadline;

    /**
     * @param restorer a single thread the loop owns from {@link #run} on: it restores executions
     *     and is shut down when the loop ends
     */
    public SourceLoop(
            Consumer<byte[], byte[]> consumer,
            List<String> topics,
            Lifecycle lifecycle,
            RestartStrategy restart,
            boolean resetToEarliest,
            LongSupplier clock,
            ExecutorService restorer) {
        this.consumer = consumer;
        this.topics = List.copyOf(topics);
        this.lifecycle = lifecycle;
        this.restart = restart;
        this.resetToEarliest = resetToEarliest;
        this.clock = clock;
        this.restorer = restorer;
        this.feeds = new Feeds(consumer);
    }

    @Override
    public void run() {
        try {
            consumer.subscribe(topics, new Rebalance());
            while (running) {
                runCommands();
                if (!running) {
                    break;
                }
                if (drainDeadline > 0 && clock.getAsLong() > drainDeadline) {
                    LOG.warn("the last checkpoint did not complete in time; stopping without it");
                    break;
                }
                restartDue();
                feeds.refill(draining);
                ConsumerRecords<byte[], byte[]> records;
                try {
                    records = consumer.poll(feeds.refillAgain() ? Duration.ZERO : POLL);
                } catch (WakeupException e) {
                    continue;
                }
                feeds.distribute(records);
                releaseHeldBarriers();
                feeds.markBehind(draining);
                updateLag();
            }
        } catch (Throwable t) {
            // A fatal error in a rebalance callback reaches us wrapped by the consumer; report our own.
            fatal = t instanceof KafkaException && t.getCause() instanceof FatalException ? t.getCause() : t;
            LOG.error("source loop stopped: {}{}", fatal, hint(fatal), t);
        } finally {
            endAll();
            awaitRestorer();
            try {
                // A graceful stop (SIGTERM: scale-in, a rolling update) leaves the group at once, so
                // the others take the partitions over now instead of after the session timeout that
                // static membership would otherwise wait; a crash or close stays a member, so a quick
                // restart under the same instance id gets its partitions back without a rebalance.
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(5))
                        .withGroupMembershipOperation(
                                draining
                                        ? CloseOptions.GroupMembershipOperation.LEAVE_GROUP
                                        : CloseOptions.GroupMembershipOperation.DEFAULT));
            } catch (RuntimeException e) {
                LOG.warn("closing the consumer failed: {}", e.toString());
            }
            running = false;
            finished.countDown();
        }
    }

    /** Puts barrier n into every channel of {@code forExecution}, recording Sn; answers {@code receiver}. */
    public void inject(long checkpointId, InjectionReceiver receiver, Execution forExecution) {
        post(() -> {
            Run run = runOf(forExecution);
            if (run == null) {
                return; // its coordinator stops with it
            }
            if (run.recordsSinceBarrier == 0 && !forExecution.written(checkpointId)) {
                if (!run.injectedSinceStart && run.held == null) {
                    // The execution's first barrier, asked for before any input arrived: it goes in
                    // right behind the first records read (or is skipped after FIRST_BARRIER_HOLD_MS),
                    // so the first epoch after a restore is one poll small and commits soon.
                    run.held = new Run.HeldBarrier(checkpointId, receiver, clock.getAsLong() + FIRST_BARRIER_HOLD_MS);
                    return;
                }
                LOG.debug("barrier {} skipped: no input and no output since the last one", checkpointId);
                receiver.skipped(checkpointId);
                return;
            }
            injectNow(run, checkpointId, receiver);
        });
    }

    /** Injects or skips held first barriers once input arrived or their time is up. */
    private void releaseHeldBarriers() {
        for (Run run : runs) {
            Run.HeldBarrier h = run.held;
            if (h == null || (run.recordsSinceBarrier == 0 && clock.getAsLong() < h.until())) {
                continue;
            }
            run.held = null;
            if (run.recordsSinceBarrier == 0 && !run.execution.written(h.checkpointId())) {
                LOG.debug("barrier {} skipped: no input since the start", h.checkpointId());
                h.receiver().skipped(h.checkpointId());
            } else {
                injectNow(run, h.checkpointId(), h.receiver());
            }
        }
    }

    private void injectNow(Run run, long checkpointId, InjectionReceiver receiver) {
        run.recordsSinceBarrier = 0; // before: records deferred behind the first barrier count for the next
        run.injectedSinceStart = true;
        Map<InputPartition, Long> positions = feeds.injectBarrier(run, checkpointId);
        run.execution.closing(checkpointId);
        LOG.debug("barrier {} injected at {}", checkpointId, positions);
        receiver.injected(checkpointId, positions, currentGroupMetadata);
    }

    /** At-least-once: commits the positions of a completed checkpoint to the group. */
    public void commitOffsets(Map<InputPartition, Long> positions, long checkpointId) {
        post(() -> {
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            Set<TopicPartition> assigned = consumer.assignment();
            positions.forEach((ip, o) -> {
                TopicPartition tp = new TopicPartition(ip.topic(), ip.partition());
                if (assigned.contains(tp)) {
                    offsets.put(tp, new OffsetAndMetadata(o, "ckpt=" + checkpointId));
                }
            });
            if (offsets.isEmpty()) {
                return;
            }
            consumer.commitAsync(offsets, (o, e) -> {
                // Only a hint for lag monitoring: the checkpoint record, already written, is what a
                // restore uses, so a failed commit loses nothing and needs no failover.
                if (e != null) {
                    LOG.warn("committing offsets of checkpoint {} failed: {}", checkpointId, e.toString());
                }
            });
        });
    }

    /** Something in {@code forExecution} failed: fail its run over, if it still runs. */
    public void fail(Throwable cause, Execution forExecution) {
        post(() -> {
            Run run = runOf(forExecution);
            if (run != null) {
                failover(run, cause);
            }
        });
    }

    /** Stops at once: output of the open epochs is aborted and processed again after a restart. */
    public void shutdown() {
        post(() -> running = false);
    }

    /**
     * Stops gracefully: stops reading, lets the tasks finish what they have and commits it in a last
     * checkpoint (waiting at most {@code timeout}), then stops. A restart then redoes nothing.
     */
    public void shutdownGracefully(Duration timeout) {
        post(() -> {
            draining = true;
            consumer.pause(consumer.assignment());
            feeds.pauseAll();
            List<CompletableFuture<Void>> drains = new ArrayList<>();
            for (Run run : List.copyOf(runs)) {
                if (run.state == Run.State.RUNNING) {
                    drains.add(run.execution.drain().exceptionally(failure -> null));
                } else {
                    end(run); // what is not running yet has nothing to commit
                    runs.remove(run);
                }
            }
            if (drains.isEmpty()) {
                running = false;
                return;
            }
            drainDeadline = clock.getAsLong() + timeout.toMillis();
            CompletableFuture.allOf(drains.toArray(CompletableFuture[]::new))
                    .whenComplete((ok, failure) -> post(() -> running = false));
            feeds.markBehind(true); // no task may wait for input that will not be fetched any more
        });
    }

    public void awaitTermination() throws InterruptedException {
        finished.await();
    }

    /** The error that stopped the loop, or null. */
    public Throwable fatal() {
        return fatal;
    }

    /** Whether every assigned partition's tasks are restored and running (or nothing is assigned). */
    public boolean ready() {
        return ready;
    }

    /** Whether the last assignment was empty: this member runs no task (and is ready). */
    public boolean assignedNothing() {
        return assignedNothing;
    }

    public boolean running() {
        return running;
    }

    /** Records between the last processed position and the end of each partition. */
    public Map<InputPartition, Long> lag() {
        return lag;
    }

    /** A checkpoint completed: the job is healthy, failures in a row start over. */
    public void progress() {
        post(restart::onProgress);
    }

    private void post(Runnable command) {
        commands.add(command);
        consumer.wakeup();
    }

    private void runCommands() {
        Runnable c;
        while ((c = commands.poll()) != null) {
            c.run();
        }
    }

    private Run runOf(Execution execution) {
        for (Run run : runs) {
            if (run.state == Run.State.RUNNING && run.execution == execution) {
                return run;
            }
        }
        return null;
    }

    /** The rebalance callbacks run inside poll, on this thread. */
    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (!partitions.isEmpty()) {
                LOG.info("partitions revoked: {}", partitions);
                takeAway(partitions);
            }
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            LOG.warn("partitions lost: {}", partitions);
            takeAway(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            groupMetadata = consumer.groupMetadata();
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
            Execution built = null;
            Throwable failure = null;
            try {
                built = lifecycle.start(inputs);
            } catch (Throwable t) {
                failure = t;
            }
            if (built != null && !run.handOver(built)) {
                built.stop(); // ended while restoring: nothing of it ran
                return;
            }
            Throwable f = failure;
            post(() -> restored(run, f));
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
        Execution execution = run.takeRestored();
        run.execution = execution;
        run.state = Run.State.RUNNING;
        try {
            List<TopicPartition> fromStart = new ArrayList<>();
            List<TopicPartition> fromEnd = new ArrayList<>();
            for (TopicPartition tp : run.partitions) {
                InputPartition ip = Run.input(tp);
                if (execution.channels().get(ip) == null) {
                    throw new IllegalStateException("the execution has no channel for " + ip);
                }
                Long position = execution.startPositions().get(ip);
                if (position != null) {
                    consumer.seek(tp, position);
                } else {
                    (resetToEarliest || execution.readsFromBeginning(ip) ? fromStart : fromEnd).add(tp);
                }
            }
            // An empty list would mean "all assigned partitions" to these two calls.
            if (!fromStart.isEmpty()) {
                consumer.seekToBeginning(fromStart);
            }
            if (!fromEnd.isEmpty()) {
                consumer.seekToEnd(fromEnd);
            }
            for (TopicPartition tp : run.partitions) {
                InputPartition ip = Run.input(tp);
                feeds.add(tp, new Feeds.Feed(ip, execution.channels().get(ip), run, consumer.position(tp)));
            }
            if (!draining) {
                consumer.resume(run.partitions);
            }
            execution.started();
            nextLagUpdate = 0; // its partitions' lag is known from now on
            LOG.info("running {} partitions from {}", run.partitions.size(), feeds.positions(run));
        } catch (FatalException e) {
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
            Execution e = run.execution;
            run.execution = null;
            e.stop();
        } else if (was == Run.State.RESTORING) {
            Execution restoredNotInstalled = run.cancel();
            if (restoredNotInstalled != null) {
                restoredNotInstalled.stop();
            }
        }
    }

    private void endAll() {
        ready = false;
        for (Run run : runs) {
            end(run);
        }
        runs.clear();
    }

    /** Waits for a restore in progress, which stops what it built: the state it opens is closed after us. */
    private void awaitRestorer() {
        restorer.shutdown();
        try {
            if (!restorer.awaitTermination(2, TimeUnit.MINUTES)) {
                LOG.warn("a restore did not finish within 2 minutes of the stop");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void failover(Run run, Throwable cause) {
        if (isFatal(cause)) {
            throw new FatalException("cannot go on: " + cause + hint(cause), cause);
        }
        end(run);
        Optional<Duration> delay = restart.onFailure(clock.getAsLong());
        if (delay.isEmpty()) {
            throw new FatalException("restart strategy gave up after: " + cause, cause);
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

    /** Restores the runs whose restart delay is over, as a new run of the same partitions. */
    private void restartDue() {
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

    private void updateReady() {
        boolean all = true;
        for (Run run : runs) {
            all &= run.state == Run.State.RUNNING;
        }
        ready = all && (assignedNothing || !runs.isEmpty());
    }

    private void updateLag() {
        long now = clock.getAsLong();
        if (now < nextLagUpdate) {
            return;
        }
        nextLagUpdate = now + 1000;
        Map<InputPartition, Long> l = new HashMap<>();
        Map<TopicPartition, Long> unknown = new HashMap<>();
        for (TopicPartition tp : consumer.assignment()) {
            InputPartition ip = Run.input(tp);
            Long next = feeds.nextOffset(tp);
            consumer.currentLag(tp).ifPresentOrElse(v -> l.put(ip, v), () -> {
                if (next != null) {
                    unknown.put(tp, next);
                }
            });
        }
        // The consumer knows the last stable offset only from fetch responses; until then (or for a
        // partition it has not fetched lately) ask the broker: read_committed, so this is the LSO too.
        if (!unknown.isEmpty()) {
            try {
                consumer.endOffsets(unknown.keySet(), Duration.ofSeconds(1))
                        .forEach((tp, end) -> l.put(Run.input(tp), Math.max(0, end - unknown.get(tp))));
            } catch (KafkaException e) {
                LOG.debug("reading end offsets for the lag failed: {}", e.toString());
            }
        }
        lag = Map.copyOf(l);
    }

    private static String hint(Throwable t) {
        return t instanceof org.apache.kafka.common.errors.FencedInstanceIdException
                ? " (another process joined the group with this instance-id: give every instance its own"
                        + " instance-id, e.g. the pod name)"
                : "";
    }

    private static boolean isFatal(Throwable t) {
        // A producer fenced by a transaction timeout recovers with new producers, so only a second
        // member with our group.instance.id and missing permissions are beyond a restart.
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof org.apache.kafka.common.errors.FencedInstanceIdException
                    || c instanceof org.apache.kafka.common.errors.TransactionalIdAuthorizationException
                    || c instanceof org.apache.kafka.common.errors.GroupAuthorizationException) {
                return true;
            }
        }
        return false;
    }
}
