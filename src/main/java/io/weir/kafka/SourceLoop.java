package io.weir.kafka;

import io.weir.checkpoint.RestartStrategy;
import io.weir.dataflow.Channel;
import io.weir.element.Barrier;
import io.weir.element.Element;
import io.weir.element.Header;
import io.weir.element.InputPartition;
import io.weir.element.Record;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The source loop: the only thread that touches the consumer. It polls, hands records to the
 * channel of their partition, pauses partitions whose channel is full, injects barriers on the
 * coordinator's request, and runs the life cycle of executions: start on assignment, stop on
 * revocation, and fail over (stop, wait as the restart strategy says, start again from the last
 * completed checkpoints) when anything fails.
 *
 * <p>Threading: {@link #run} is the owner thread. Other threads talk to it only through
 * {@link #inject}, {@link #commitOffsets}, {@link #fail} and {@link #shutdown}, which queue a
 * command and wake the consumer.
 */
public final class SourceLoop implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(SourceLoop.class);
    private static final Duration POLL = Duration.ofMillis(100);

    /** Builds and stops executions; implemented by the composition root. */
    public interface Lifecycle {
        /**
         * Restores the tasks of the assigned partitions and starts them. {@code committedCheckpoints}
         * holds, per partition, the checkpoint id its committed offset names (absent: none).
         */
        Execution start(Set<InputPartition> assigned, CommittedCheckpoints committedCheckpoints) throws Exception;

        /** The loop stopped the execution after {@code cause} and will start a new one after a delay. */
        default void failedOver(Throwable cause) {}

        /** The group assigned {@code partitions} to this member (each rebalance). */
        default void assigned(Set<InputPartition> partitions) {}
    }

    /**
     * Per assigned partition, the checkpoint id its committed offset names (absent: none). Reading
     * it waits for a predecessor's pending transactional offsets to resolve, so call it only after
     * this instance's producers were initialised — which is what aborts the transactions a crashed
     * predecessor with the same transactional ids left open. Called on the source loop thread.
     */
    @FunctionalInterface
    public interface CommittedCheckpoints {
        Map<InputPartition, Long> read();
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
         * Checkpoints until everything handed to the channels so far is committed (the source
         * loop stopped reading); completes exceptionally when a checkpoint fails.
         */
        java.util.concurrent.CompletableFuture<Void> drain();

        /** Stops tasks, coordinator and producers; returns when nothing of it runs any more. */
        void stop();
    }

    /** Where barrier injections are answered; one per execution's coordinator. */
    public interface InjectionReceiver {
        void injected(long checkpointId, Map<InputPartition, Long> positions, Object fencingToken);

        void skipped(long checkpointId);
    }

    /** An error no restart can fix (fenced by a newer instance, restart attempts exhausted). */
    public static final class FatalException extends RuntimeException {
        public FatalException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static final class Feed {
        final InputPartition partition;
        final Channel channel;
        final ArrayDeque<Element> overflow = new ArrayDeque<>();
        long nextOffset;
        boolean paused;

        Feed(InputPartition partition, Channel channel) {
            this.partition = partition;
            this.channel = channel;
        }
    }

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final List<String> topics;
    private final Lifecycle lifecycle;
    private final RestartStrategy restart;
    private final boolean resetToEarliest;
    private final LongSupplier clock;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final Map<TopicPartition, Feed> feeds = new HashMap<>();
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile Map<InputPartition, Long> lag = Map.of();
    private volatile boolean running = true;
    private volatile boolean ready;
    private volatile boolean assignedNothing;
    private volatile Throwable fatal;
    private Execution execution;
    private long recordsSinceBarrier;
    /** Whether a barrier went in since the execution started; the first may be held, see {@link #inject}. */
    private boolean injectedSinceStart;

    private HeldBarrier held;
    private static final long FIRST_BARRIER_HOLD_MS = 250;
    private boolean restartPending;
    private long restartAt;
    private long nextLagUpdate;
    private boolean refillAgain;
    private long drainDeadline;
    /** Set by a graceful stop: the consumer leaves the group when it closes. */
    private boolean leaveGroupOnClose;

    public SourceLoop(
            KafkaConsumer<byte[], byte[]> consumer,
            List<String> topics,
            Lifecycle lifecycle,
            RestartStrategy restart,
            boolean resetToEarliest,
            LongSupplier clock) {
        this.consumer = consumer;
        this.topics = List.copyOf(topics);
        this.lifecycle = lifecycle;
        this.restart = restart;
        this.resetToEarliest = resetToEarliest;
        this.clock = clock;
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
                if (restartPending && clock.getAsLong() >= restartAt) {
                    restartPending = false;
                    startExecution(consumer.assignment());
                }
                refill();
                ConsumerRecords<byte[], byte[]> records;
                try {
                    records = consumer.poll(refillAgain ? Duration.ZERO : POLL);
                } catch (WakeupException e) {
                    continue;
                }
                distribute(records);
                releaseHeldBarrier();
                markBehind();
                updateLag();
            }
        } catch (Throwable t) {
            // A fatal error in a rebalance callback reaches us wrapped by the consumer; report our own.
            fatal = t instanceof KafkaException && t.getCause() instanceof FatalException ? t.getCause() : t;
            LOG.error("source loop stopped: {}{}", fatal, hint(fatal), t);
        } finally {
            stopExecution();
            try {
                // A graceful stop (SIGTERM: scale-in, a rolling update) leaves the group at once, so
                // the others take the partitions over now instead of after the session timeout that
                // static membership would otherwise wait; a crash or close stays a member, so a quick
                // restart under the same instance id gets its partitions back without a rebalance.
                consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5))
                        .withGroupMembershipOperation(
                                leaveGroupOnClose
                                        ? org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation
                                                .LEAVE_GROUP
                                        : org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation
                                                .DEFAULT));
            } catch (RuntimeException e) {
                LOG.warn("closing the consumer failed: {}", e.toString());
            }
            running = false;
            finished.countDown();
        }
    }

    /** Puts barrier n into every channel, recording Sn; answers {@code receiver} from the loop. */
    public void inject(long checkpointId, InjectionReceiver receiver, Execution forExecution) {
        post(() -> {
            if (forExecution != execution || execution == null) {
                return;
            }
            if (recordsSinceBarrier == 0 && !execution.written(checkpointId)) {
                if (!injectedSinceStart && held == null) {
                    // The execution's first barrier, asked for before any input arrived: it goes in
                    // right behind the first records read (or is skipped after FIRST_BARRIER_HOLD_MS),
                    // so the first epoch after a restore is one poll small and commits soon.
                    held = new HeldBarrier(
                            checkpointId, receiver, execution, clock.getAsLong() + FIRST_BARRIER_HOLD_MS);
                    return;
                }
                LOG.debug("barrier {} skipped: no input and no output since the last one", checkpointId);
                receiver.skipped(checkpointId);
                return;
            }
            injectNow(checkpointId, receiver);
        });
    }

    /** A first barrier waiting for the execution's first input; see {@link #inject}. */
    private record HeldBarrier(long checkpointId, InjectionReceiver receiver, Execution execution, long until) {}

    /** Injects or skips the held first barrier once input arrived or its time is up. */
    private void releaseHeldBarrier() {
        HeldBarrier h = held;
        if (h == null || (recordsSinceBarrier == 0 && clock.getAsLong() < h.until())) {
            return;
        }
        held = null;
        if (h.execution() != execution) {
            return; // its coordinator stopped with its execution
        }
        if (recordsSinceBarrier == 0 && !execution.written(h.checkpointId())) {
            LOG.debug("barrier {} skipped: no input since the start", h.checkpointId());
            h.receiver().skipped(h.checkpointId());
        } else {
            injectNow(h.checkpointId(), h.receiver());
        }
    }

    private void injectNow(long checkpointId, InjectionReceiver receiver) {
        Map<InputPartition, Long> positions = new HashMap<>();
        for (Feed f : feeds.values()) {
            Barrier barrier = new Barrier(checkpointId);
            if (f.overflow.isEmpty()) {
                f.channel.put(barrier);
            } else {
                f.overflow.addLast(barrier);
            }
            positions.put(f.partition, f.nextOffset);
            execution.wake(f.partition);
        }
        recordsSinceBarrier = 0;
        injectedSinceStart = true;
        execution.closing(checkpointId);
        LOG.debug("barrier {} injected at {}", checkpointId, positions);
        receiver.injected(checkpointId, positions, consumer.groupMetadata());
    }

    /** At-least-once: commits the positions of a completed checkpoint to the group. */
    public void commitOffsets(Map<InputPartition, Long> positions, long checkpointId) {
        post(() -> {
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            positions.forEach((ip, o) -> offsets.put(
                    new TopicPartition(ip.topic(), ip.partition()), new OffsetAndMetadata(o, "ckpt=" + checkpointId)));
            consumer.commitAsync(offsets, (o, e) -> {
                // Only a hint for lag monitoring: the checkpoint record, already written, is what a
                // restore uses, so a failed commit loses nothing and needs no failover.
                if (e != null) {
                    LOG.warn("committing offsets of checkpoint {} failed: {}", checkpointId, e.toString());
                }
            });
        });
    }

    /** Something in {@code forExecution} failed: fail over, if it is still the current execution. */
    public void fail(Throwable cause, Execution forExecution) {
        post(() -> {
            if (forExecution == execution && execution != null) {
                failover(cause);
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
            leaveGroupOnClose = true;
            if (execution == null) {
                running = false;
                return;
            }
            consumer.pause(consumer.assignment());
            for (Feed f : feeds.values()) {
                f.paused = true;
            }
            long deadline = clock.getAsLong() + timeout.toMillis();
            execution.drain().whenComplete((ok, failure) -> post(() -> running = false));
            drainDeadline = deadline;
            markBehind(); // no task may wait for input that will not be fetched any more
        });
    }

    public void awaitTermination() throws InterruptedException {
        finished.await();
    }

    /** The error that stopped the loop, or null. */
    public Throwable fatal() {
        return fatal;
    }

    /** Whether tasks are restored and running. */
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

    private void failover(Throwable cause) {
        if (isFatal(cause)) {
            throw new FatalException("cannot go on: " + cause + hint(cause), cause);
        }
        stopExecution();
        Optional<Duration> delay = restart.onFailure(clock.getAsLong());
        if (delay.isEmpty()) {
            throw new FatalException("restart strategy gave up after: " + cause, cause);
        }
        LOG.warn("failing over in {} ms after: {}", delay.get().toMillis(), cause.toString(), cause);
        lifecycle.failedOver(cause);
        consumer.pause(consumer.assignment());
        restartPending = true;
        restartAt = clock.getAsLong() + delay.get().toMillis();
    }

    /** The rebalance callbacks run inside poll, on this thread. */
    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (!partitions.isEmpty()) {
                LOG.info("partitions revoked: {}", partitions);
            }
            stopExecution();
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            LOG.warn("partitions lost: {}", partitions);
            stopExecution();
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            LOG.info("partitions assigned: {}", partitions);
            Set<InputPartition> inputs = new HashSet<>();
            partitions.forEach(tp -> inputs.add(toInput(tp)));
            lifecycle.assigned(inputs);
            if (!restartPending) {
                startExecution(consumer.assignment());
            }
        }
    }

    private void startExecution(Set<TopicPartition> assigned) {
        stopExecution();
        assignedNothing = assigned.isEmpty();
        if (assigned.isEmpty()) {
            // A member without partitions (more instances than partitions) runs nothing and is fine.
            ready = true;
            return;
        }
        try {
            Set<InputPartition> inputs = new HashSet<>();
            assigned.forEach(tp -> inputs.add(toInput(tp)));
            execution = lifecycle.start(inputs, () -> committedCheckpoints(assigned));
            List<TopicPartition> fromStart = new ArrayList<>();
            List<TopicPartition> fromEnd = new ArrayList<>();
            for (TopicPartition tp : assigned) {
                InputPartition ip = toInput(tp);
                Channel channel = execution.channels().get(ip);
                if (channel == null) {
                    throw new IllegalStateException("the execution has no channel for " + ip);
                }
                Long position = execution.startPositions().get(ip);
                if (position != null) {
                    consumer.seek(tp, position);
                } else {
                    (resetToEarliest || execution.readsFromBeginning(ip) ? fromStart : fromEnd).add(tp);
                }
                feeds.put(tp, new Feed(ip, channel));
            }
            // An empty list would mean "all assigned partitions" to these two calls.
            if (!fromStart.isEmpty()) {
                consumer.seekToBeginning(fromStart);
            }
            if (!fromEnd.isEmpty()) {
                consumer.seekToEnd(fromEnd);
            }
            for (Map.Entry<TopicPartition, Feed> f : feeds.entrySet()) {
                f.getValue().nextOffset = consumer.position(f.getKey());
            }
            consumer.resume(assigned);
            recordsSinceBarrier = 0;
            injectedSinceStart = false;
            held = null;
            execution.started();
            ready = true;
            LOG.info("running {} partitions from {}", assigned.size(), positionsOf());
        } catch (FatalException e) {
            throw e;
        } catch (Exception e) {
            failover(e);
        }
    }

    private Map<InputPartition, Long> committedCheckpoints(Set<TopicPartition> assigned) {
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(assigned, Duration.ofMinutes(1));
        Map<InputPartition, Long> checkpoints = new HashMap<>();
        committed.forEach((tp, om) -> {
            if (om != null && om.metadata() != null && om.metadata().startsWith("ckpt=")) {
                checkpoints.put(toInput(tp), Long.parseLong(om.metadata().substring(5)));
            }
        });
        return checkpoints;
    }

    private Map<InputPartition, Long> positionsOf() {
        Map<InputPartition, Long> p = new java.util.TreeMap<>();
        feeds.values().forEach(f -> p.put(f.partition, f.nextOffset));
        return p;
    }

    private void stopExecution() {
        ready = false;
        if (execution != null) {
            Execution e = execution;
            execution = null;
            e.stop();
        }
        feeds.clear();
    }

    private void distribute(ConsumerRecords<byte[], byte[]> records) {
        if (records.isEmpty()) {
            return;
        }
        for (TopicPartition tp : records.partitions()) {
            Feed feed = feeds.get(tp);
            if (feed == null) {
                continue;
            }
            for (ConsumerRecord<byte[], byte[]> r : records.records(tp)) {
                Record record = new Record(r.key(), r.value(), r.timestamp(), r.offset(), headers(r));
                if (feed.overflow.isEmpty() && feed.channel.remainingCapacity() > 0) {
                    feed.channel.put(record);
                } else {
                    feed.overflow.addLast(record);
                }
                feed.nextOffset = r.offset() + 1;
                recordsSinceBarrier++;
            }
            if (!feed.overflow.isEmpty() && !feed.paused) {
                consumer.pause(List.of(tp));
                feed.paused = true;
                feed.channel.wakeWhenDrained(consumer::wakeup);
            }
            execution.wake(feed.partition);
        }
    }

    /** Moves overflow into channels that drained; resumes partitions whose overflow is empty. */
    private void refill() {
        refillAgain = false;
        for (Map.Entry<TopicPartition, Feed> e : feeds.entrySet()) {
            Feed f = e.getValue();
            if (f.overflow.isEmpty()) {
                continue;
            }
            boolean moved = false;
            while (!f.overflow.isEmpty()
                    && (!(f.overflow.peekFirst() instanceof Record) || f.channel.remainingCapacity() > 0)) {
                f.channel.put(f.overflow.pollFirst());
                moved = true;
            }
            if (moved && execution != null) {
                execution.wake(f.partition);
            }
            if (f.overflow.isEmpty() && f.paused && drainDeadline == 0) {
                consumer.resume(List.of(e.getKey()));
                f.paused = false;
            } else if (!f.overflow.isEmpty() && !f.channel.wakeWhenDrained(consumer::wakeup)) {
                refillAgain = true; // drained while we looked: do not wait in poll
            }
        }
    }

    /**
     * Tells each channel whether its partition has records on the broker beyond what was fetched
     * (read_committed: up to the last stable offset), from the consumer's last fetch responses; not
     * known yet counts as behind. A task reading several topics waits for such an input instead of
     * running ahead of it (see {@link Channel#behind(boolean)}).
     */
    private void markBehind() {
        if (execution == null) {
            return;
        }
        boolean fetching = drainDeadline == 0;
        for (Map.Entry<TopicPartition, Feed> e : feeds.entrySet()) {
            // While draining nothing more is fetched: only what waits in the overflow is still to come.
            java.util.OptionalLong lag = fetching ? consumer.currentLag(e.getKey()) : java.util.OptionalLong.of(0);
            boolean behind = !e.getValue().overflow.isEmpty() || lag.isEmpty() || lag.getAsLong() > 0;
            if (e.getValue().channel.behind(behind) && !behind) {
                execution.wake(e.getValue().partition);
            }
        }
    }

    private void updateLag() {
        long now = clock.getAsLong();
        if (now < nextLagUpdate) {
            return;
        }
        nextLagUpdate = now + 1000;
        Map<InputPartition, Long> l = new HashMap<>();
        List<TopicPartition> unknown = new ArrayList<>();
        for (TopicPartition tp : consumer.assignment()) {
            consumer.currentLag(tp).ifPresentOrElse(v -> l.put(toInput(tp), v), () -> {
                if (feeds.containsKey(tp)) {
                    unknown.add(tp);
                }
            });
        }
        // The consumer knows the last stable offset only from fetch responses; until then (or for a
        // partition it has not fetched lately) ask the broker: read_committed, so this is the LSO too.
        if (!unknown.isEmpty()) {
            try {
                consumer.endOffsets(unknown, Duration.ofSeconds(1))
                        .forEach((tp, end) -> l.put(toInput(tp), Math.max(0, end - feeds.get(tp).nextOffset)));
            } catch (KafkaException e) {
                LOG.debug("reading end offsets for the lag failed: {}", e.toString());
            }
        }
        lag = Map.copyOf(l);
    }

    private static List<Header> headers(ConsumerRecord<byte[], byte[]> r) {
        org.apache.kafka.common.header.Header[] hs = r.headers().toArray();
        if (hs.length == 0) {
            return List.of();
        }
        List<Header> out = new ArrayList<>(hs.length);
        for (org.apache.kafka.common.header.Header h : hs) {
            out.add(new Header(h.key(), h.value()));
        }
        return out;
    }

    private static InputPartition toInput(TopicPartition tp) {
        return new InputPartition(tp.topic(), tp.partition());
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
