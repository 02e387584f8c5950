package io.weir.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.checkpoint.RestartStrategy;
import io.weir.dataflow.Channel;
import io.weir.element.InputPartition;
import io.weir.fixtures.ManualScheduler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.WakeupException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The run lifecycle alone, on one thread: the restore thread is a {@link ManualScheduler} and the
 * hand-back to the loop a queue, both run when the test says, and the clock is the test's, so every
 * step is deterministic.
 */
class RunsTest {
    private static final String TOPIC = "orders";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    private static final Duration DELAY = Duration.ofMillis(500);

    /** Wakeups the consumer's next position lookups throw, as KafkaConsumer does when another thread woke it. */
    private int wakeups;

    /** The group's generation: each rebalance moves it on, as the broker's does (MockConsumer's stays 1). */
    private int generation;

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest") {
        @Override
        public synchronized void rebalance(java.util.Collection<TopicPartition> newAssignment) {
            generation++;
            super.rebalance(newAssignment);
        }

        @Override
        public synchronized org.apache.kafka.clients.consumer.ConsumerGroupMetadata groupMetadata() {
            return new org.apache.kafka.clients.consumer.ConsumerGroupMetadata(
                    "g", generation, "member-1", java.util.Optional.empty());
        }

        @Override
        public synchronized long position(TopicPartition tp) {
            if (wakeups > 0) {
                wakeups--;
                throw new WakeupException();
            }
            return super.position(tp);
        }
    };
    private final Feeds feeds = new Feeds(consumer);
    /** The restore thread, run by the test: {@link #restores} and {@link #loopTurn}. */
    private final ManualScheduler restorer = new ManualScheduler();

    private final Queue<Runnable> toLoop = new ArrayDeque<>();
    private final RebalanceHold hold = new RebalanceHold();
    private final List<Fake> started = new ArrayList<>();
    private final List<Throwable> failedOver = new ArrayList<>();
    private final Map<InputPartition, Long> positions = new HashMap<>();
    private long now = 1_000_000;
    private RuntimeException restoreFailure;
    /** What the lifecycle's assigned() throws (refusing the assignment), or null. */
    private RuntimeException assignmentRefused;
    /** Runs inside the next restore, as the loop's thread would meanwhile. */
    private Runnable duringRestore;
    /** The restores that saw their run ended and gave up. */
    private final List<Set<InputPartition>> gaveUp = new ArrayList<>();

    private CompletableFuture<Void> drainOutcome = CompletableFuture.completedFuture(null);
    private Runs runs;

    /** An execution that records what the runs do with it. */
    private final class Fake implements SourceLoop.Execution {
        final Set<InputPartition> partitions;
        final Map<InputPartition, Channel> channels = new HashMap<>();
        boolean running;
        boolean stopped;

        Fake(Set<InputPartition> partitions) {
            this.partitions = partitions;
            partitions.forEach(ip -> channels.put(ip, new Channel(ip.partition(), ip.toString(), 16)));
        }

        @Override
        public Map<InputPartition, Channel> channels() {
            return channels;
        }

        @Override
        public Map<InputPartition, Long> startPositions() {
            return positions;
        }

        @Override
        public void wake(InputPartition partition) {}

        @Override
        public void started() {
            running = true;
        }

        @Override
        public CompletableFuture<Void> drain() {
            return drainOutcome;
        }

        @Override
        public void stop() {
            stopped = true;
            running = false;
        }
    }

    @BeforeEach
    void setUp() {
        consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
        consumer.updateEndOffsets(Map.of(P0, 100L, P1, 100L));
        runs = runs(new RestartStrategy.Settings(
                RestartStrategy.Kind.FIXED_DELAY, DELAY, Duration.ZERO, Duration.ZERO, 1, 0, 2, 0, Duration.ZERO));
        consumer.subscribe(List.of(TOPIC), runs);
    }

    private Runs runs(RestartStrategy.Settings restart) {
        return new Runs(
                consumer,
                feeds,
                new Lag(consumer, feeds, () -> now),
                new SourceLoop.Lifecycle() {
                    @Override
                    public SourceLoop.Execution start(Set<InputPartition> partitions, BooleanSupplier ended) {
                        if (restoreFailure != null) {
                            throw restoreFailure;
                        }
                        Runnable during = duringRestore;
                        duringRestore = null;
                        if (during != null) {
                            during.run();
                            if (ended.getAsBoolean()) {
                                gaveUp.add(partitions);
                                throw new CancellationException("the run was ended while it restored");
                            }
                        }
                        Fake e = new Fake(partitions);
                        started.add(e);
                        return e;
                    }

                    @Override
                    public void failedOver(Throwable cause) {
                        failedOver.add(cause);
                    }

                    @Override
                    public void assigned(Set<InputPartition> partitions) {
                        if (assignmentRefused != null) {
                            throw assignmentRefused;
                        }
                    }
                },
                new RestartStrategy(restart, () -> 0.5),
                false,
                () -> now,
                restorer,
                toLoop::add,
                hold);
    }

    private static InputPartition ip(TopicPartition tp) {
        return new InputPartition(tp.topic(), tp.partition());
    }

    /** Restarts the runs whose delay is over and runs their restores (not their hand-backs). */
    private void restartDue() {
        runs.restartDue();
        restores();
    }

    /** Runs the restores queued on the restore thread; their hand-backs wait for {@link #loopTurn}. */
    private void restores() {
        restorer.runAll();
    }

    /** The restores queued, then what the source loop does between polls: the commands they handed back. */
    private void loopTurn() {
        restores();
        Runnable c;
        while ((c = toLoop.poll()) != null) {
            c.run();
        }
    }

    private Fake last() {
        return started.get(started.size() - 1);
    }

    @Test
    void anAssignedRunIsInstalledOnlyOnTheLoopsTurnThenSeekedToItsRestoredPositionsAndResumed() {
        positions.put(ip(P0), 42L); // P1 has no checkpoint: the reset (latest here) applies
        consumer.rebalance(List.of(P0, P1));

        assertEquals(0, started.size(), "the callback only queues the restore");
        assertEquals(Set.of(P0, P1), consumer.paused(), "paused until installed");
        restores();
        assertEquals(1, started.size());
        assertFalse(last().running, "not installed before the loop's turn");
        assertFalse(runs.ready());

        loopTurn();
        assertTrue(last().running);
        assertEquals(42L, consumer.position(P0), "resumes at its restored position");
        assertEquals(100L, consumer.position(P1), "no checkpoint: reset to the end");
        assertEquals(Set.of(), consumer.paused());
        assertTrue(runs.ready());
        assertEquals(42L, feeds.nextOffset(P0), "fed from there");
        hold.commit(g -> assertEquals(consumer.groupMetadata(), g, "a commit takes the published generation"));
    }

    @Test
    void anAssignmentTheLifecycleRefusesStopsTheCallbackBeforeAnyRunRestores() {
        assignmentRefused = new SourceLoop.FatalException("topic t has more than 2 partitions", null);

        SourceLoop.FatalException e =
                assertThrows(SourceLoop.FatalException.class, () -> consumer.rebalance(List.of(P0, P1)));
        restores();

        assertEquals("topic t has more than 2 partitions", e.getMessage());
        assertEquals(0, started.size(), "no run restored");
        assertEquals(List.of(), runs.list());
    }

    @Test
    void aWakeupForThePollWhileARunIsInstalledDoesNotFailItOver() {
        consumer.rebalance(List.of(P0, P1));
        wakeups = 2; // e.g. a coordinator asked for a barrier while the loop installs the run
        loopTurn();
        assertTrue(last().running, "installed");
        assertEquals(List.of(), failedOver);
        assertEquals(100L, consumer.position(P0));
        assertTrue(runs.ready());
    }

    @Test
    void anInstallThatKeepsMeetingWakeupsFailsTheRunOverInsteadOfHoldingTheLoop() {
        consumer.rebalance(List.of(P0, P1));
        wakeups = Feeds.WAKEUPS_PER_LOOKUP + 1; // commands keep coming while the lookup cannot finish
        loopTurn();
        assertEquals(1, failedOver.size(), "failed over, the loop goes on to its commands");
        assertTrue(failedOver.get(0) instanceof WakeupException);
        assertFalse(runs.ready());
    }

    @Test
    void withRestartNoneACommitLostToARebalanceStopsTheJobLikeAnyFailure() {
        runs = runs(new RestartStrategy.Settings(
                RestartStrategy.Kind.NONE, DELAY, Duration.ZERO, Duration.ZERO, 1, 0, 0, 0, Duration.ZERO));
        consumer.subscribe(List.of(TOPIC), runs);
        consumer.rebalance(List.of(P0));
        loopTurn();
        CommitFailedException race = new CommitFailedException("Specified group generation id is not valid.");
        SourceLoop.FatalException stopped = assertThrows(
                SourceLoop.FatalException.class,
                () -> runs.fail(last(), new IllegalStateException("commit failed", race)));
        assertTrue(stopped.getMessage().contains("gave up"), stopped.getMessage());
    }

    @Test
    void aCommitStartedWhileTheMemberRejoinsWaitsForTheCallbackAndTakesTheNewGeneration() throws Exception {
        consumer.rebalance(List.of(P0, P1));
        loopTurn();
        hold.commit(g -> assertEquals(1, g.generationId()));
        hold.rejoining(); // the assignor was asked for the join request's user data
        java.util.concurrent.atomic.AtomicInteger used = new java.util.concurrent.atomic.AtomicInteger(-1);
        Thread committer = new Thread(() -> hold.commit(g -> used.set(g.generationId())));
        committer.setDaemon(true);
        committer.start();
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> committer.getState() == Thread.State.TIMED_WAITING);
        assertEquals(-1, used.get(), "a commit waits while the member rejoins");

        consumer.rebalance(List.of(P0, P1)); // the rebalance ends, generation 2; nothing moved
        committer.join(Duration.ofSeconds(10).toMillis());
        assertEquals(2, used.get(), "the commit took the generation the callback published");
        assertTrue(hold.commitStarts(Duration.ZERO), "the callback released the hold");
        hold.commitEnded();
        assertTrue(last().running, "a run the rebalance left alone goes on");
    }

    @Test
    void aRunEndedWhileTheMemberRejoinsLetsItsHeldCommitGoOn() throws Exception {
        consumer.rebalance(List.of(P0));
        loopTurn();
        hold.rejoining();

        // The loop thread stops the run and waits for its commit in flight: that commit must not
        // wait for the rebalance, which the loop thread, stopping the run, does not drive on.
        runs.fail(last(), new IllegalStateException("boom"));
        assertTrue(hold.commitStarts(Duration.ZERO));
        hold.commitEnded();
    }

    @Test
    void aFailedRunWaitsItsRestartDelayOnTheClockAndIsRestoredAgain() {
        consumer.rebalance(List.of(P0));
        loopTurn();
        Fake first = last();

        runs.fail(first, new IllegalStateException("boom"));
        assertTrue(first.stopped);
        assertEquals(1, failedOver.size());
        assertEquals(Set.of(P0), consumer.paused(), "paused while it waits");
        assertNull(feeds.nextOffset(P0), "no longer fed");
        assertFalse(runs.ready());

        now += DELAY.toMillis() - 1;
        restartDue();
        assertEquals(1, started.size(), "not before the delay is over");
        now += 1;
        restartDue();
        assertEquals(2, started.size(), "restored again once it is");
        assertEquals(Set.of(ip(P0)), last().partitions);
        loopTurn();
        assertTrue(last().running);
        assertTrue(runs.ready());

        runs.fail(first, new IllegalStateException("late")); // the old execution's failure, reported late
        assertEquals(1, failedOver.size(), "an execution that no longer runs fails nothing");
        assertTrue(last().running);
    }

    @Test
    void aRestoreThatFailsIsFailedOverNotInstalled() {
        restoreFailure = new IllegalStateException("snapshot unreadable");
        consumer.rebalance(List.of(P0));
        loopTurn();
        assertEquals(List.of(restoreFailure), failedOver);
        assertEquals(Set.of(P0), consumer.paused());
        assertFalse(runs.ready());

        restoreFailure = null;
        now += DELAY.toMillis();
        restartDue();
        loopTurn();
        assertTrue(last().running);
        assertTrue(runs.ready());
    }

    @Test
    void failuresNoRestartCanFixStopTheLoopAndSoDoesAStrategyThatGaveUp() {
        consumer.rebalance(List.of(P0));
        loopTurn();
        SourceLoop.FatalException fenced = assertThrows(
                SourceLoop.FatalException.class,
                () -> runs.fail(last(), new KafkaException(new FencedInstanceIdException("fenced"))));
        assertTrue(fenced.getMessage().contains("cannot go on"), fenced.getMessage());

        // The strategy tolerates two failures in a row; a completed checkpoint starts the count over.
        for (int i = 0; i < 2; i++) {
            runs.fail(last(), new IllegalStateException("boom " + i));
            now += DELAY.toMillis();
            restartDue();
            loopTurn();
        }
        runs.progress();
        for (int i = 0; i < 2; i++) {
            runs.fail(last(), new IllegalStateException("again " + i));
            now += DELAY.toMillis();
            restartDue();
            loopTurn();
        }
        SourceLoop.FatalException gaveUp = assertThrows(
                SourceLoop.FatalException.class, () -> runs.fail(last(), new IllegalStateException("third")));
        assertTrue(gaveUp.getMessage().contains("gave up"), gaveUp.getMessage());
    }

    @Test
    void aCommitLostToARebalanceRestoresAtOnceAFewTimesInARowThenWaitsLikeAnyFailure() {
        consumer.rebalance(List.of(P0));
        loopTurn();
        CommitFailedException race = new CommitFailedException("Specified group generation id is not valid.");
        for (int i = 0; i < Runs.IMMEDIATE_RACES; i++) {
            runs.fail(last(), new IllegalStateException("commit of checkpoint " + i + " failed", race));
            restartDue(); // the clock has not moved
            loopTurn();
            assertTrue(last().running, "race " + i + ": restored at once");
            assertEquals(i + 2, started.size());
        }
        runs.fail(last(), new IllegalStateException("commit failed", race));
        restartDue();
        assertEquals(Runs.IMMEDIATE_RACES + 1, started.size(), "one race too many waits the restart delay");
        now += DELAY.toMillis();
        restartDue();
        loopTurn();
        assertTrue(last().running);

        runs.progress(); // a checkpoint completed: races count from zero again
        runs.fail(last(), new IllegalStateException("commit failed", race));
        restartDue();
        assertEquals(Runs.IMMEDIATE_RACES + 3, started.size(), "restored at once again");

        loopTurn();
        runs.fail(last(), new IllegalStateException("not a race"));
        restartDue();
        assertEquals(Runs.IMMEDIATE_RACES + 3, started.size(), "any other failure waits its delay");
    }

    @Test
    void aRevocationSplitsARunTheKeptPartitionsRestoreAgainAndTheRevokedStayAway() {
        consumer.rebalance(List.of(P0, P1));
        loopTurn();
        Fake both = last();

        consumer.rebalance(List.of(P1));
        assertTrue(both.stopped, "the run holding the revoked partition ended in the callback");
        loopTurn();
        assertEquals(Set.of(ip(P1)), last().partitions, "the kept partition restores as a run of its own");
        assertTrue(last().running);
        assertNull(feeds.nextOffset(P0));
        assertEquals(Set.of(P1), consumer.assignment());
        assertTrue(runs.ready());
    }

    @Test
    void aRestoreLearnsThatItsRunWasEndedAndItsGivingUpIsNoFailure() {
        // The group takes P0 away while the run of P0 and P1 restores: the restore sees its run
        // ended, gives up, and the restore thread goes on to the run of the kept partition.
        duringRestore = () -> consumer.rebalance(List.of(P1));
        consumer.rebalance(List.of(P0, P1));
        loopTurn();
        assertEquals(List.of(Set.of(ip(P0), ip(P1))), gaveUp);
        assertEquals(Set.of(ip(P1)), last().partitions);
        assertEquals(1, started.size(), "the run that gave up handed nothing back");
        assertTrue(last().running);
        assertTrue(failedOver.isEmpty(), "a restore that gave up was taken for a failure: " + failedOver);
        assertTrue(runs.ready());
    }

    @Test
    void aGracefulDrainEndsRunsStillWaitingAndDrainsTheRunningOnesEvenWhenTheirDrainFails() {
        consumer.rebalance(List.of(P0));
        loopTurn();
        Fake running = last();
        consumer.rebalance(List.of(P0, P1));
        restores();
        Fake notInstalled = last(); // restored, its hand-back not yet run by the loop
        drainOutcome = CompletableFuture.failedFuture(new IllegalStateException("last checkpoint failed"));

        List<CompletableFuture<Void>> drains = runs.drain();
        assertEquals(1, drains.size(), "only the running run drains");
        assertTrue(drains.get(0).isDone() && !drains.get(0).isCompletedExceptionally(), "a failed drain still ends");
        assertTrue(notInstalled.stopped, "what was restored but not installed is stopped");
        assertFalse(running.stopped, "the running one drains first");
        loopTurn();
        assertFalse(notInstalled.running, "never installed");

        now += DELAY.toMillis();
        runs.fail(running, new IllegalStateException("boom"));
        now += DELAY.toMillis();
        restartDue();
        assertEquals(2, started.size(), "nothing restarts while draining");
        assertTrue(runs.draining());
    }

    @Test
    void closingEndsEveryRun() {
        consumer.rebalance(List.of(P0));
        loopTurn();
        Fake first = last();
        runs.close();
        assertTrue(first.stopped);
        assertFalse(runs.ready());
        assertTrue(runs.list().isEmpty());
    }
}
