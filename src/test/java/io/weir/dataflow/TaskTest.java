package io.weir.dataflow;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.weir.fixtures.RecordingEpochOutputs.Entry;
import io.weir.state.KeyedState;
import io.weir.state.Serde;
import io.weir.state.Timer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class TaskTest {
    private static final List<Supplier<Operator>> COUNT = List.of(CountPerKey::new);

    private static long count(KeyedState state, String key) {
        state.setCurrentKey(TaskRig.bytes(key));
        Long v = state.valueState(CountPerKey.STATE, Serde.LONG).value();
        return v == null ? 0 : v;
    }

    @Test
    void barrierOnEveryChannelSnapshotsAcknowledgesAndSwitchesToTheNextEpoch() throws Exception {
        TaskRig rig = new TaskRig(2, true, 1, COUNT);
        rig.record(0, 1);
        rig.record(1, 2);
        rig.inject();
        rig.record(0, 3);

        rig.drain();

        assertEquals(List.of(1L), rig.acks.ids());
        assertEquals("count-0", rig.acks.of(1).task());
        assertEquals(2, rig.task.epoch());
        assertEquals(List.of(1L, 2L), rig.outputs.lookups());
        assertEquals(List.of("c0:1", "c1:1"), rig.outputs.values(1, TaskRig.SINK));
        assertEquals(List.of("c0:2"), rig.outputs.values(2, TaskRig.SINK));
        KeyedState snapshot = rig.restore(rig.acks.of(1).part());
        assertEquals(1, count(snapshot, "c0"));
        assertEquals(1, count(snapshot, "c1"));
    }

    @Test
    void aBlockedChannelsRecordsWaitUntilTheBarrierArrivedOnEveryChannel() throws Exception {
        TaskRig rig = new TaskRig(2, true, 1, COUNT);
        rig.barrier(0, 1);
        rig.record(0, 0); // behind the barrier, and the earliest timestamp of all
        rig.record(1, 5);
        rig.record(1, 6);

        rig.run(1); // the barrier on channel 0
        rig.run(2); // channel 1's records, though channel 0's head is earlier

        assertEquals(List.of("c1:1", "c1:2"), rig.outputs.values(1, TaskRig.SINK));
        assertEquals(0, rig.run(10), "channel 0 is blocked and channel 1 is empty");

        rig.barrier(1, 1);
        rig.drain();

        assertEquals(List.of(1L), rig.acks.ids());
        assertEquals(List.of("c0:1"), rig.outputs.values(2, TaskRig.SINK));
        assertEquals(0, count(rig.restore(rig.acks.of(1).part()), "c0"));
    }

    @Test
    void theNextRecordComesFromTheChannelWithTheEarliestHead() throws Exception {
        TaskRig rig = new TaskRig(3, true, 1, COUNT);
        rig.record(0, 30);
        rig.record(0, 31);
        rig.record(1, 10);
        rig.record(1, 40);
        rig.record(2, 20);

        rig.drain();

        assertEquals(List.of("c1:1", "c2:1", "c0:1", "c0:2", "c1:2"), rig.outputs.values(1, TaskRig.SINK));
    }

    @Test
    void barriersUpToTheRestoredCheckpointAreIgnored() throws Exception {
        TaskRig rig = new TaskRig(2, true, 5, COUNT);
        rig.barrier(0, 4);
        rig.barrier(1, 3);
        rig.record(0, 1);
        rig.record(1, 1);

        rig.drain();

        assertEquals(List.of(), rig.acks.ids());
        assertEquals(5, rig.task.epoch());
        assertEquals(List.of("c0:1", "c1:1"), rig.outputs.values(5, TaskRig.SINK));
    }

    @Test
    void trackingKeepsEveryChannelFlowingAndSnapshotsAtTheLastBarrier() throws Exception {
        TaskRig rig = new TaskRig(2, false, 1, COUNT);
        rig.barrier(0, 1);
        rig.record(0, 0); // after the cut on channel 0
        rig.record(1, 5);

        rig.run(3);

        assertEquals(List.of("c0:1", "c1:1"), rig.outputs.values(1, TaskRig.SINK), "channel 0 was held back");
        rig.barrier(1, 1);
        rig.drain();
        assertEquals(List.of(1L), rig.acks.ids());
        // At-least-once: the snapshot includes the record after channel 0's cut.
        assertEquals(1, count(rig.restore(rig.acks.of(1).part()), "c0"));
    }

    @Test
    void anOvertakenAlignmentUnblocksAndTheNewerCheckpointCompletes() throws Exception {
        TaskRig rig = new TaskRig(2, true, 1, COUNT);
        rig.barrier(0, 1);
        rig.record(0, 1);
        rig.barrier(0, 2);
        rig.barrier(1, 2); // channel 1 lost barrier 1

        rig.drain();

        assertEquals(List.of(2L), rig.acks.ids());
        assertEquals(3, rig.task.epoch());
        assertEquals(1, count(rig.restore(rig.acks.of(2).part()), "c0"));
    }

    @Test
    void aBadRecordGoesToTheDeadLetterTopicInTheCurrentEpoch() throws Exception {
        TaskRig rig = new TaskRig(2, true, 1, COUNT);
        rig.record(1, "k", "good", 1);
        rig.record(1, "k", "bad value", 2);

        rig.drain();

        List<Entry> sends = rig.outputs.sends(1);
        assertEquals(2, sends.size());
        Entry dead = sends.get(1);
        assertEquals(TaskRig.DEAD_LETTERS, dead.topic());
        assertEquals("k", dead.keyText());
        assertEquals("bad value", dead.valueText());
        assertEquals("cannot decode 'bad value'", dead.header("weir.error"));
        assertEquals("count", dead.header("weir.stage"));
        assertEquals("count-0", dead.header("weir.task"));
        assertEquals("in-1", dead.header("weir.source"));
        assertEquals("in", dead.header("weir.topic"));
        assertEquals("1", dead.header("weir.partition"));
        assertEquals("1", dead.header("weir.offset"));
        assertEquals(2, rig.counters.recordsIn.sum());
        assertEquals(1, rig.counters.recordsOut.sum());
        assertEquals(1, rig.counters.deadLetters.sum());
    }

    @Test
    void aFailedSendFailsTheTaskAtItsNextRun() throws Exception {
        TaskRig rig = new TaskRig(1, true, 1, COUNT);
        IOException failure = new IOException("broker gone");
        rig.outputs.failNextSend(failure);
        rig.record(0, 1);
        rig.run(1);

        Task.OperatorFailure thrown = assertThrows(Task.OperatorFailure.class, () -> rig.run(1));
        assertSame(failure, thrown.getCause());
    }

    @Test
    void aBurstEndsAtTheFirstSendWhoseCallbackReportedAFailure() throws Exception {
        TaskRig rig = new TaskRig(1, true, 1, List.of(fanOut(10)));
        IOException failure = new IOException("broker gone");
        rig.outputs.failNextSend(failure);
        rig.record(0, "k", "a", 1);

        rig.run(1);

        // With the broker unreachable each further send could block for max.block.ms.
        assertEquals(List.of("a-0"), rig.outputs.values(1, TaskRig.SINK));
        Task.OperatorFailure thrown = assertThrows(Task.OperatorFailure.class, () -> rig.run(1));
        assertSame(failure, thrown.getCause());
    }

    @Test
    void aSendThatFailedBeforeTheBarrierPreventsTheAcknowledgement() throws Exception {
        TaskRig rig = new TaskRig(1, true, 1, COUNT);
        rig.outputs.failNextSend(new IOException("broker gone"));
        rig.record(0, 1);
        rig.inject();

        assertThrows(Task.OperatorFailure.class, () -> rig.run(10));

        assertEquals(List.of(), rig.acks.ids());
        assertEquals(List.of(1L), rig.outputs.lookups(), "switched to the next epoch");
    }

    @Test
    void anOperatorsCheckedExceptionFailsTheTask() {
        Exception cause = new Exception("boom");
        TaskRig rig = new TaskRig(1, true, 1, List.of(() -> (event, out) -> {
            throw cause;
        }));
        rig.record(0, 1);

        Task.OperatorFailure thrown = assertThrows(Task.OperatorFailure.class, () -> rig.run(1));
        assertSame(cause, thrown.getCause());
    }

    @Test
    void operatorsOfAChainRunInOrder() throws Exception {
        Supplier<Operator> upper =
                () -> (event, out) -> out.emit(event.withValue(((String) event.value()).toUpperCase()));
        Supplier<Operator> twice = () -> (event, out) -> {
            out.emit(event);
            out.emit(event);
        };
        TaskRig rig = new TaskRig(1, true, 1, List.of(upper, twice));
        rig.record(0, "k", "hello", 1);

        rig.drain();

        assertEquals(List.of("HELLO", "HELLO"), rig.outputs.values(1, TaskRig.SINK));
    }

    @Test
    void aBatchsOutputsAreSentTogetherAtItsEndInTheOrderTheyWereMade() throws Exception {
        List<Integer> sentBefore = new ArrayList<>();
        TaskRig[] rig = new TaskRig[1];
        Supplier<Operator> probe = () -> (event, out) -> {
            sentBefore.add(rig[0].outputs.sends(1).size());
            out.emit(event);
        };
        rig[0] = new TaskRig(1, true, 1, List.of(probe));
        for (int i = 1; i <= 3; i++) {
            rig[0].record(0, "k", "v" + i, i);
        }

        rig[0].run(3);

        assertEquals(List.of(0, 0, 0), sentBefore, "nothing of the batch was sent while it ran");
        assertEquals(List.of("v1", "v2", "v3"), rig[0].outputs.values(1, TaskRig.SINK));
    }

    @Test
    void outputsBeyondOneBurstAreSentInOrderAndEachInItsOwnEpoch() throws Exception {
        int fanOut = PendingSends.BURST * 2 + 10;
        TaskRig rig = new TaskRig(1, true, 1, List.of(fanOut(fanOut)));
        rig.record(0, "k", "a", 1);
        rig.inject();
        rig.record(0, "k", "b", 2);

        rig.run(3); // one batch: a, the barrier, b

        assertEquals(fannedOut(fanOut, "a"), rig.outputs.values(1, TaskRig.SINK));
        assertEquals(fannedOut(fanOut, "b"), rig.outputs.values(2, TaskRig.SINK));
        assertEquals(List.of(), rig.outputs.violations());
    }

    @Test
    void aTaskKeepsItsOutputsWhileAnotherHoldsTheSendTurnAndSendsThemInOrderWhenItRunsOutOfInput() throws Exception {
        int fanOut = PendingSends.BURST + 50;
        TaskRig rig = new TaskRig(1, true, 1, List.of(fanOut(fanOut)));
        rig.record(0, "k", "a", 1);
        rig.record(0, "k", "b", 2);
        ReentrantLock turn = (ReentrantLock) rig.env.sendTurn();
        ExecutorService worker = Executors.newSingleThreadExecutor();
        try {
            turn.lock(); // another task's burst under way
            Future<Integer> outOfInput;
            try {
                assertEquals(2, worker.submit(() -> rig.run(2)).get(1, TimeUnit.MINUTES));
                assertEquals(List.of(), rig.outputs.sends(1), "kept while the turn was taken");

                outOfInput = worker.submit(() -> rig.run(2));
                await().atMost(Duration.ofMinutes(1)).until(turn::hasQueuedThreads);
                assertEquals(List.of(), rig.outputs.sends(1), "a task out of input waits for the turn");
            } finally {
                turn.unlock();
            }
            assertEquals(0, outOfInput.get(1, TimeUnit.MINUTES));
        } finally {
            worker.shutdownNow();
        }

        assertEquals(fannedOut(fanOut, "a", "b"), rig.outputs.values(1, TaskRig.SINK));
    }

    @Test
    void aTaskHoldingTheMostItMayKeepWaitsForTheSendTurn() throws Exception {
        int fanOut = PendingSends.MAX + 10;
        TaskRig rig = new TaskRig(1, true, 1, List.of(fanOut(fanOut)));
        rig.record(0, "k", "a", 1);
        rig.record(0, "k", "b", 2);
        ReentrantLock turn = (ReentrantLock) rig.env.sendTurn();
        ExecutorService worker = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> run;
            turn.lock();
            try {
                run = worker.submit(() -> rig.run(1)); // one element: more than MAX outputs
                await().atMost(Duration.ofMinutes(1)).until(turn::hasQueuedThreads);
                assertEquals(List.of(), rig.outputs.sends(1));
            } finally {
                turn.unlock();
            }
            assertEquals(1, run.get(1, TimeUnit.MINUTES));
        } finally {
            worker.shutdownNow();
        }

        assertEquals(fannedOut(fanOut, "a"), rig.outputs.values(1, TaskRig.SINK));
    }

    /** What {@link #fanOut} makes of {@code values}, in order: v-0 … v-(outputs-1) for each. */
    private static List<String> fannedOut(int outputs, String... values) {
        List<String> all = new ArrayList<>();
        for (String v : values) {
            for (int i = 0; i < outputs; i++) {
                all.add(v + "-" + i);
            }
        }
        return all;
    }

    private static Supplier<Operator> fanOut(int outputs) {
        return () -> (event, out) -> {
            for (int i = 0; i < outputs; i++) {
                out.emit(event.withValue(event.value() + "-" + i));
            }
        };
    }

    @Test
    void theEventTimeOfATaskIsTheLowestWatermarkOfItsChannels() throws Exception {
        List<Long> seen = new ArrayList<>();
        Supplier<Operator> probe = () -> new Operator() {
            @Override
            public void process(Event event, Collector out) {}

            @Override
            public void onWatermark(long watermark, Collector out) {
                seen.add(watermark);
            }
        };
        TaskRig rig = new TaskRig(2, true, 1, List.of(probe));
        rig.watermark(0, 10);
        rig.drain();
        rig.watermark(1, 5);
        rig.drain();
        rig.watermark(1, 20);
        rig.drain();
        rig.watermark(0, 8); // a channel's watermark never goes back

        rig.drain();

        assertEquals(List.of(5L, 10L), seen);
    }

    @Test
    void timersFireInTimeOrderAndReachOnlyTheOperatorThatSetThem() throws Exception {
        List<String> fired = new ArrayList<>();
        TaskRig rig = new TaskRig(
                1,
                true,
                1,
                List.of(() -> new TimerProbe("first", 10, fired), () -> new TimerProbe("second", 5, fired)));
        rig.record(0, "a", "x", 100);
        rig.record(0, "b", "y", 101);

        rig.drain();
        rig.watermark(0, 110);
        rig.drain();

        // "first" set timers at 110 and 111, "second" (after first) at 105 and 106.
        assertEquals(List.of("second a@105", "second b@106", "first a@110"), fired);
        rig.watermark(0, 200);
        rig.drain();
        assertEquals("first b@111", fired.get(3));
        assertEquals(4, fired.size());
    }

    @Test
    void processingTimersFireFromTheInjectedClockNeverEarly() throws Exception {
        List<String> fired = new ArrayList<>();
        Supplier<Operator> probe = () -> new Operator() {
            private OperatorContext context;

            @Override
            public void open(OperatorContext context) {
                this.context = context;
            }

            @Override
            public void process(Event event, Collector out) {
                context.timers().registerProcessingTime(context.currentProcessingTime() + 50);
            }

            @Override
            public void onTimer(Timer timer, Collector out) {
                fired.add(new String(timer.key(), StandardCharsets.UTF_8) + "@" + timer.timestamp());
                out.emit(new Event(timer.key(), "timer", timer.timestamp()));
            }
        };
        TaskRig rig = new TaskRig(1, true, 1, List.of(probe));
        rig.clock.set(1_000);
        rig.record(0, "k", "v", 1);
        rig.drain();

        rig.clock.advance(Duration.ofMillis(49));
        rig.run(1);
        assertEquals(List.of(), fired);
        // The task looks at the clock at most every 10 ms, so a timer fires up to 10 ms late.
        rig.clock.advance(Duration.ofMillis(10));
        rig.run(1);

        assertEquals(List.of("k@1050"), fired);
        assertEquals(List.of("timer"), rig.outputs.values(1, TaskRig.SINK));
    }

    @Test
    void timersAreInTheSnapshot() throws Exception {
        List<String> fired = new ArrayList<>();
        TaskRig rig = new TaskRig(1, true, 1, List.of(() -> new TimerProbe("only", 10, fired)));
        rig.record(0, "a", "x", 100);
        rig.inject();
        rig.drain();

        KeyedState restored = rig.restore(rig.acks.of(1).part());

        List<Timer> timers = restored.takeDueTimers(io.weir.state.TimerDomain.EVENT_TIME, Long.MAX_VALUE);
        assertEquals(1, timers.size());
        assertEquals(110, timers.get(0).timestamp());
        assertEquals("0", timers.get(0).owner());
    }

    @Test
    void theTaskIsNamedAfterItsStageAndPartition() {
        TaskRig rig = new TaskRig(1, true, 1, COUNT);

        assertEquals("count-0", rig.task.name());
        assertSame(rig.state, rig.task.state());
    }

    /** Sets an event-time timer {@code delay} after each record, and notes which timers reach it. */
    private static final class TimerProbe implements Operator {
        private final String name;
        private final long delay;
        private final List<String> fired;
        private OperatorContext context;

        TimerProbe(String name, long delay, List<String> fired) {
            this.name = name;
            this.delay = delay;
            this.fired = fired;
        }

        @Override
        public void open(OperatorContext context) {
            this.context = context;
        }

        @Override
        public void process(Event event, Collector out) {
            context.timers().registerEventTime(event.timestamp() + delay);
            out.emit(event);
        }

        @Override
        public void onTimer(Timer timer, Collector out) {
            fired.add(name + " " + new String(timer.key(), StandardCharsets.UTF_8) + "@" + timer.timestamp());
        }
    }
}
