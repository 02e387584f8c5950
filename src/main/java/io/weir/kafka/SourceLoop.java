package io.weir.kafka;

import io.weir.checkpoint.RestartStrategy;
import io.weir.dataflow.Channel;
import io.weir.element.InputPartition;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The source loop: the only thread that touches the consumer. It polls and hands records over
 * ({@link Feeds}), injects barriers on the coordinators' requests, commits at-least-once offsets,
 * and drains on a graceful stop; the life of the runs (which partitions run together, their
 * restore, failover and restart) is {@link Runs}', whose rebalance callbacks run inside this loop's
 * poll, and the lag is {@link Lag}'s.
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
         * never on the source loop's, so it must not touch the source consumer. {@code ended} turns
         * true when the run was ended meanwhile (a rebalance took some of its partitions): nothing of
         * the restore will be used, so it may give up early by throwing.
         */
        Execution start(Set<InputPartition> partitions, java.util.function.BooleanSupplier ended) throws Exception;

        /** The loop stopped an execution after {@code cause} and will start it again after a delay. */
        default void failedOver(Throwable cause) {}

        /**
         * The group changed this member's assignment; {@code partitions} is all of it (each rebalance).
         * Throwing {@link FatalException} refuses it: the loop stops before any new run restores.
         */
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
         * Barrier {@code checkpointId} went in at {@code positions}; {@code fencingToken}, a {@link
         * GroupCommit}, runs their commit with the group metadata current when it commits.
         */
        void injected(long checkpointId, Map<InputPartition, Long> positions, Object fencingToken);

        void skipped(long checkpointId);
    }

    /**
     * Runs a transactional commit with the group's current metadata, kept apart from this member's
     * rejoins ({@link RebalanceHold}).
     */
    public interface GroupCommit {
        void commit(java.util.function.Consumer<ConsumerGroupMetadata> sendOffsetsAndCommit);
    }

    /** An error no restart can fix (fenced by a newer instance, restart attempts exhausted). */
    public static final class FatalException extends RuntimeException {
        public FatalException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final Consumer<byte[], byte[]> consumer;
    private final List<String> topics;
    private final LongSupplier clock;

    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final Feeds feeds;
    private final Lag lag;
    private final Runs runs;
    private final GroupCommit groupCommit;
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile Throwable fatal;
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
            ExecutorService restorer,
            RebalanceHold hold) {
        this.consumer = consumer;
        this.topics = List.copyOf(topics);
        this.clock = clock;
        this.feeds = new Feeds(consumer);
        this.lag = new Lag(consumer, feeds, clock);
        this.runs =
                new Runs(consumer, feeds, lag, lifecycle, restart, resetToEarliest, clock, restorer, this::post, hold);
        this.groupCommit = hold::commit;
    }

    @Override
    public void run() {
        try {
            consumer.subscribe(topics, runs);
            while (running) {
                runCommands();
                if (!running) {
                    break;
                }
                if (drainDeadline > 0 && clock.getAsLong() > drainDeadline) {
                    LOG.warn("the last checkpoint did not complete in time; stopping without it");
                    break;
                }
                runs.restartDue();
                feeds.refill(runs.draining());
                ConsumerRecords<byte[], byte[]> records;
                try {
                    records = consumer.poll(feeds.refillAgain() ? Duration.ZERO : POLL);
                } catch (WakeupException e) {
                    continue;
                }
                feeds.distribute(records);
                releaseHeldBarriers();
                feeds.markBehind(runs.draining());
                lag.update();
            }
        } catch (Throwable t) {
            // A fatal error in a rebalance callback reaches us wrapped by the consumer; report our own.
            fatal = t instanceof KafkaException && t.getCause() instanceof FatalException ? t.getCause() : t;
            LOG.error("source loop stopped: {}{}", fatal, Failures.hint(fatal), t);
        } finally {
            runs.close();
            try {
                // A graceful stop (SIGTERM: scale-in, a rolling update) leaves the group at once, so
                // the others take the partitions over now instead of after the session timeout that
                // static membership would otherwise wait; so does a fatal error (a refused partition
                // count, a restart strategy that gave up): this process will not run them again, and
                // `weir rescale` waits for an empty group. A close stays a member, so a quick restart
                // under the same instance id gets its partitions back without a rebalance, and so does
                // a member fenced by a second process under its instance id: that one is the member now.
                boolean leave = runs.draining() || (fatal != null && !Failures.fencedInstance(fatal));
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(5))
                        .withGroupMembershipOperation(
                                leave
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
            Run run = runs.running(forExecution);
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
        for (Run run : runs.list()) {
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
        receiver.injected(checkpointId, positions, groupCommit);
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
        post(() -> runs.fail(forExecution, cause));
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
            consumer.pause(consumer.assignment());
            feeds.pauseAll();
            List<CompletableFuture<Void>> drains = runs.drain();
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
        return runs.ready();
    }

    /** Whether the last assignment was empty: this member runs no task (and is ready). */
    public boolean assignedNothing() {
        return runs.assignedNothing();
    }

    public boolean running() {
        return running;
    }

    /** Records between the last processed position and the end of each partition. */
    public Map<InputPartition, Long> lag() {
        return lag.current();
    }

    /** A checkpoint completed: the job is healthy, failures in a row start over. */
    public void progress() {
        post(runs::progress);
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
}
