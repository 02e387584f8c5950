package io.weir.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weir.checkpoint.CheckpointStats;
import io.weir.fixtures.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReadinessTest {
    private final FakeClock clock = new FakeClock(1_000_000);
    private final CheckpointHistory history = new CheckpointHistory(20, clock);
    private boolean stopped;
    private boolean running;
    private String notRunning = "starting";
    private boolean noTasks;
    private final Readiness readiness = new Readiness(
            new Readiness.Tasks() {
                @Override
                public boolean stopped() {
                    return stopped;
                }

                @Override
                public boolean running() {
                    return running;
                }

                @Override
                public String notRunning() {
                    return notRunning;
                }

                @Override
                public boolean noTasks() {
                    return noTasks;
                }
            },
            Duration.ofSeconds(2),
            history,
            clock);

    private static CheckpointStats stats(long id) {
        return new CheckpointStats(id, 0, 1, 1, 1, 1, 4, 10, Map.of("t-0", 10L), List.of());
    }

    @Test
    void notReadyWhileStartingOrRestoringThenReadyOnceACheckpointCompleted() {
        assertEquals(Optional.of("starting"), readiness.notReadyReason());

        notRunning = "restoring tasks orders-2, orders-3";
        assertEquals(Optional.of("restoring tasks orders-2, orders-3"), readiness.notReadyReason());

        notRunning = null;
        running = true;
        assertEquals(Optional.of("no checkpoint completed yet"), readiness.notReadyReason());

        history.checkpointTriggered(1, clock.millis());
        assertEquals(Optional.of("no checkpoint completed yet"), readiness.notReadyReason());
        history.checkpointCompleted(stats(1));
        assertEquals(Optional.empty(), readiness.notReadyReason());
    }

    @Test
    void notReadyWhenNoCheckpointCompletedForThreeIntervals() {
        running = true;
        history.checkpointTriggered(1, clock.millis());
        history.checkpointCompleted(stats(1));

        clock.advance(Duration.ofSeconds(6));
        assertEquals(Optional.empty(), readiness.notReadyReason(), "exactly three intervals is still ready");
        clock.advance(Duration.ofMillis(1));
        assertEquals(
                Optional.of("no checkpoint completed for 6001 ms (more than 6000 ms)"), readiness.notReadyReason());

        history.checkpointTriggered(2, clock.millis());
        history.checkpointSkipped(2, true);
        assertEquals(Optional.empty(), readiness.notReadyReason(), "an idle job skips checkpoints and stays ready");
    }

    @Test
    void aSkipBehindACheckpointStillInFlightDoesNotKeepTheInstanceReady() {
        // At-least-once during a broker outage: checkpoint 2 waits for its tasks, 3 finds no input.
        running = true;
        history.checkpointTriggered(1, clock.millis());
        history.checkpointCompleted(stats(1));
        clock.advance(Duration.ofSeconds(1));
        history.checkpointTriggered(2, clock.millis());
        for (int i = 0; i < 30; i++) {
            clock.advance(Duration.ofSeconds(1));
            history.checkpointTriggered(3, clock.millis());
            history.checkpointSkipped(3, false);
        }
        assertEquals(
                Optional.of("no checkpoint completed for 31000 ms (more than 6000 ms)"), readiness.notReadyReason());
    }

    @Test
    void anIdleJobThatStallsIsToldWithTheLastCompletionsAge() {
        running = true;
        history.checkpointTriggered(1, clock.millis());
        history.checkpointCompleted(stats(1));
        clock.advance(Duration.ofSeconds(60));
        history.checkpointTriggered(2, clock.millis());
        history.checkpointSkipped(2, true); // idle: still ready
        clock.advance(Duration.ofSeconds(7));
        assertEquals(
                Optional.of("no checkpoint completed for 67000 ms and none skipped on idle input for 7000 ms"
                        + " (more than 6000 ms)"),
                readiness.notReadyReason());
    }

    @Test
    void aFailoverOrAStopIsNotReady() {
        running = false;
        notRunning = "failing over after: boom";
        assertEquals(Optional.of("failing over after: boom"), readiness.notReadyReason());
        notRunning = null;
        assertEquals(Optional.of("starting the restored tasks"), readiness.notReadyReason());
        stopped = true;
        assertEquals(Optional.of("stopped"), readiness.notReadyReason());
    }

    @Test
    void aMemberAssignedNoPartitionIsReadyWithoutCheckpoints() {
        assertEquals(Optional.of("starting"), readiness.notReadyReason(), "no assignment yet: not ready");
        notRunning = null;
        running = true;
        noTasks = true;
        assertEquals(Optional.empty(), readiness.notReadyReason(), "nothing to restore or checkpoint");
        noTasks = false;
        assertEquals(Optional.of("no checkpoint completed yet"), readiness.notReadyReason());
    }
}
