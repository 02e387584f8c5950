package io.weir.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.checkpoint.RestartStrategy;
import io.weir.dataflow.Channel;
import io.weir.element.Barrier;
import io.weir.element.Element;
import io.weir.element.InputPartition;
import io.weir.element.Record;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The source loop around a {@link MockConsumer}: rebalances are simulated inside poll, on the
 * loop's thread, as the real consumer runs its callbacks.
 */
class SourceLoopTest {
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final String TOPIC = "orders";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    private final List<FakeExecution> started = new CopyOnWriteArrayList<>();
    private final Map<Set<InputPartition>, CountDownLatch> gates = new ConcurrentHashMap<>();
    private final AtomicReference<Thread> loopThread = new AtomicReference<>();
    private final AtomicReference<Thread> restoreThread = new AtomicReference<>();
    private SourceLoop loop;
    private Thread thread;

    /** An execution that records what the loop does with it. */
    final class FakeExecution implements SourceLoop.Execution {
        final Set<InputPartition> partitions;
        final Map<InputPartition, Channel> channels = new HashMap<>();
        final AtomicBoolean running = new AtomicBoolean();
        final AtomicBoolean stopped = new AtomicBoolean();
        final AtomicInteger checkpointsAsked = new AtomicInteger();

        FakeExecution(Set<InputPartition> partitions) {
            this.partitions = partitions;
            int i = 0;
            for (InputPartition ip : partitions) {
                channels.put(ip, new Channel(i++, ip.toString(), 1024));
            }
        }

        @Override
        public Map<InputPartition, Channel> channels() {
            return channels;
        }

        @Override
        public Map<InputPartition, Long> startPositions() {
            Map<InputPartition, Long> p = new HashMap<>();
            partitions.forEach(ip -> p.put(ip, 0L));
            return p;
        }

        @Override
        public void wake(InputPartition partition) {}

        @Override
        public void started() {
            running.set(true);
        }

        @Override
        public void checkpointSoon() {
            checkpointsAsked.incrementAndGet();
        }

        @Override
        public CompletableFuture<Void> drain() {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void stop() {
            stopped.set(true);
            running.set(false);
        }

        List<Element> taken(InputPartition ip) {
            List<Element> out = new ArrayList<>();
            Element e;
            while ((e = channels.get(ip).poll()) != null) {
                out.add(e);
            }
            return out;
        }
    }

    private void startLoop(Duration restartDelay) {
        startLoop(restartDelay, System::currentTimeMillis);
    }

    private void startLoop(Duration restartDelay, java.util.function.LongSupplier clock) {
        consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
        consumer.updateEndOffsets(Map.of(P0, 0L, P1, 0L));
        RestartStrategy restart = new RestartStrategy(
                new RestartStrategy.Settings(
                        RestartStrategy.Kind.FIXED_DELAY,
                        restartDelay,
                        Duration.ZERO,
                        Duration.ZERO,
                        1,
                        0,
                        0,
                        0,
                        Duration.ZERO),
                () -> 0.5);
        loop = new SourceLoop(
                consumer,
                List.of(TOPIC),
                new SourceLoop.Lifecycle() {
                    @Override
                    public SourceLoop.Execution start(Set<InputPartition> partitions, BooleanSupplier ended)
                            throws Exception {
                        restoreThread.set(Thread.currentThread());
                        CountDownLatch gate = gates.get(partitions);
                        if (gate != null) {
                            gate.await();
                        }
                        FakeExecution e = new FakeExecution(partitions);
                        started.add(e);
                        return e;
                    }
                },
                restart,
                true,
                clock,
                Executors.newSingleThreadExecutor(),
                new RebalanceHold());
        thread = new Thread(() -> {
            loopThread.set(Thread.currentThread());
            loop.run();
        });
        thread.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        gates.values().forEach(CountDownLatch::countDown);
        if (loop != null) {
            loop.shutdown();
            loop.awaitTermination();
        }
    }

    /** Runs {@code rebalance} inside the loop's next poll and waits until it ran. */
    private void inPoll(Runnable rebalance) {
        CountDownLatch done = new CountDownLatch(1);
        consumer.schedulePollTask(() -> {
            rebalance.run();
            done.countDown();
        });
        await().atMost(DEADLINE).until(() -> done.getCount() == 0);
    }

    private static InputPartition ip(TopicPartition tp) {
        return new InputPartition(tp.topic(), tp.partition());
    }

    private FakeExecution executionOf(TopicPartition tp) {
        await().atMost(DEADLINE)
                .until(() -> started.stream().anyMatch(e -> e.partitions.contains(ip(tp)) && e.running.get()));
        return started.stream()
                .filter(e -> e.partitions.contains(ip(tp)) && e.running.get())
                .findFirst()
                .orElseThrow();
    }

    /** P0 assigned, then P1 too (cooperative: only P1 is new): two runs, each with its execution. */
    private FakeExecution[] twoRuns() {
        startLoop(Duration.ofMillis(10));
        inPoll(() -> consumer.rebalance(List.of(P0)));
        FakeExecution first = executionOf(P0);
        inPoll(() -> consumer.rebalance(List.of(P0, P1)));
        FakeExecution second = executionOf(P1);
        assertNotEquals(first, second, "a partition assigned later runs in its own execution");
        return new FakeExecution[] {first, second};
    }

    /** Keeps the positions of an injected barrier; counts the answers. */
    private static final class Answers implements SourceLoop.InjectionReceiver {
        final AtomicReference<Map<InputPartition, Long>> positions = new AtomicReference<>();
        final AtomicInteger count = new AtomicInteger();

        @Override
        public void injected(long id, Map<InputPartition, Long> p, Object token) {
            positions.set(p);
            count.incrementAndGet();
        }

        @Override
        public void skipped(long id) {
            count.incrementAndGet();
        }
    }

    @Test
    void assignedPartitionsStayPausedWhileTheirRestoreRunsOffTheLoopThreadAndPollingGoesOn() {
        CountDownLatch gate = new CountDownLatch(1);
        gates.put(Set.of(ip(P0), ip(P1)), gate);
        startLoop(Duration.ofMillis(10));
        inPoll(() -> consumer.rebalance(List.of(P0, P1)));
        await().atMost(DEADLINE).until(() -> restoreThread.get() != null);
        assertNotEquals(loopThread.get(), restoreThread.get(), "the restore runs on the restore thread");
        assertEquals(Set.of(P0, P1), consumer.paused(), "paused while restoring");
        assertFalse(loop.ready());
        // The loop keeps polling while the restore waits: a task scheduled for a later poll runs.
        inPoll(() -> {});
        inPoll(() -> {});

        gate.countDown();
        FakeExecution e = executionOf(P0);
        await().atMost(DEADLINE).until(loop::ready);
        assertEquals(Set.of(), consumer.paused(), "resumed once running");
        inPoll(() -> consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 0L, "k".getBytes(), "v".getBytes())));
        await().atMost(DEADLINE).until(() -> e.channels.get(ip(P0)).peek() != null);
        assertInstanceOf(Record.class, e.channels.get(ip(P0)).peek());
    }

    @Test
    void aRevocationEndsOnlyTheRunHoldingTheRevokedPartition() {
        startLoop(Duration.ofMillis(10));
        inPoll(() -> consumer.rebalance(List.of(P0)));
        FakeExecution first = executionOf(P0);
        inPoll(() -> consumer.rebalance(List.of(P0, P1))); // cooperative: only P1 is new
        FakeExecution second = executionOf(P1);
        assertNotEquals(first, second, "a partition assigned later runs in its own execution");

        inPoll(() -> consumer.rebalance(List.of(P1))); // P0 goes to another member
        assertTrue(first.stopped.get(), "the run holding P0 ended before the callback returned");
        assertFalse(second.stopped.get(), "the run holding P1 goes on");
        assertTrue(second.running.get());
        assertEquals(2, started.size(), "nothing was restored again");
    }

    @Test
    void aFailureRestartsOnlyTheRunItHappenedIn() {
        FakeExecution[] runs = twoRuns();
        FakeExecution first = runs[0];
        FakeExecution second = runs[1];

        loop.fail(new IllegalStateException("boom"), second);
        await().atMost(DEADLINE)
                .until(() -> started.size() == 3 && started.get(2).running.get());
        assertTrue(second.stopped.get());
        assertEquals(Set.of(ip(P1)), started.get(2).partitions, "restored again: the failed run's partitions");
        assertFalse(first.stopped.get(), "the other run was not touched");
        await().atMost(DEADLINE).until(loop::ready);
    }

    @Test
    void aRunRevokedWhileRestoringStopsWhatItsRestoreBuiltAndNeverStartsIt() {
        CountDownLatch gate = new CountDownLatch(1);
        gates.put(Set.of(ip(P0)), gate);
        startLoop(Duration.ofMillis(10));
        inPoll(() -> consumer.rebalance(List.of(P0)));
        await().atMost(DEADLINE).until(() -> restoreThread.get() != null);
        inPoll(() -> consumer.rebalance(List.of()));
        gate.countDown();
        await().atMost(DEADLINE)
                .until(() -> started.size() == 1 && started.get(0).stopped.get());
        assertFalse(started.get(0).running.get(), "never installed");
        inPoll(() -> {});
        assertTrue(loop.ready(), "nothing assigned: ready");
        assertTrue(loop.assignedNothing());
    }

    @Test
    void aBarrierGoesIntoTheChannelsOfItsOwnExecutionOnlyWithThePositionsReadThere() {
        FakeExecution[] runs = twoRuns();
        FakeExecution first = runs[0];
        FakeExecution second = runs[1];
        inPoll(() -> {
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 0L, "a".getBytes(), "1".getBytes()));
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 1L, "b".getBytes(), "2".getBytes()));
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 1, 0L, "c".getBytes(), "3".getBytes()));
        });
        await().atMost(DEADLINE).until(() -> first.channels.get(ip(P0)).remainingCapacity() == 1022);
        await().atMost(DEADLINE).until(() -> second.channels.get(ip(P1)).remainingCapacity() == 1023);

        Answers answers = new Answers();
        loop.inject(7, answers, first);
        await().atMost(DEADLINE).until(() -> answers.count.get() == 1);
        assertEquals(Map.of(ip(P0), 2L), answers.positions.get(), "S7 of the first execution: P0 read up to offset 2");
        List<Element> p0 = first.taken(ip(P0));
        assertEquals(3, p0.size());
        assertEquals(new Barrier(7), p0.get(2), "behind the records read");
        assertTrue(
                second.taken(ip(P1)).stream().noneMatch(el -> el instanceof Barrier),
                "the other execution got no barrier");
    }

    @Test
    void theFirstBarrierAfterAStartCoversAtMostAFewHundredRecordsPerPartitionAndTheRestFollowIt() {
        startLoop(Duration.ofMillis(10));
        inPoll(() -> consumer.rebalance(List.of(P0)));
        FakeExecution e = executionOf(P0);
        int read = Feeds.FIRST_EPOCH_RECORDS + 300;
        inPoll(() -> {
            for (int i = 0; i < read; i++) {
                consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, i, "k".getBytes(), "v".getBytes()));
            }
        });
        await().atMost(DEADLINE)
                .until(() -> e.channels.get(ip(P0)).remainingCapacity() == 1024 - Feeds.FIRST_EPOCH_RECORDS);
        // No barrier was on its way: the execution is asked for one now, not at its next interval.
        await().atMost(DEADLINE).until(() -> e.checkpointsAsked.get() == 1);
        assertTrue(consumer.paused().contains(P0), "paused while the rest waits for the first barrier");

        Answers answers = new Answers();
        loop.inject(1, answers, e);
        await().atMost(DEADLINE).until(() -> answers.positions.get() != null);
        assertEquals(
                Map.of(ip(P0), (long) Feeds.FIRST_EPOCH_RECORDS), answers.positions.get(), "S1 after the first few");
        List<Element> taken = new ArrayList<>();
        await().atMost(DEADLINE).until(() -> {
            taken.addAll(e.taken(ip(P0)));
            return taken.size() == read + 1;
        });
        assertEquals(new Barrier(1), taken.get(Feeds.FIRST_EPOCH_RECORDS), "the barrier follows the first few");
        for (int i = 0; i < read + 1; i++) {
            if (i != Feeds.FIRST_EPOCH_RECORDS) {
                long expected = i < Feeds.FIRST_EPOCH_RECORDS ? i : i - 1;
                assertEquals(expected, ((Record) taken.get(i)).offset(), "in offset order at " + i);
            }
        }
        await().atMost(DEADLINE).until(() -> !consumer.paused().contains(P0));
    }

    @Test
    void aFirstBarrierAskedForBeforeInputGoesInBehindTheFirstRecordsAndNoOtherIsAskedFor() {
        // A clock that stands still: the held barrier is never given up (after 250 ms) while the
        // records are on their way, however slow this machine is.
        startLoop(Duration.ofMillis(10), () -> 1_000_000L);
        inPoll(() -> consumer.rebalance(List.of(P0)));
        FakeExecution e = executionOf(P0);
        Answers answers = new Answers();
        loop.inject(1, answers, e);
        int read = Feeds.FIRST_EPOCH_RECORDS + 300;
        inPoll(() -> {
            for (int i = 0; i < read; i++) {
                consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, i, "k".getBytes(), "v".getBytes()));
            }
        });
        await().atMost(DEADLINE).until(() -> answers.positions.get() != null);
        assertEquals(Map.of(ip(P0), (long) Feeds.FIRST_EPOCH_RECORDS), answers.positions.get());
        assertEquals(0, e.checkpointsAsked.get(), "the held barrier was on its way already");
    }
}
