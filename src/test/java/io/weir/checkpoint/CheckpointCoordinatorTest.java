package io.weir.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.element.InputPartition;
import io.weir.fixtures.FakeCheckpointIo;
import io.weir.fixtures.FakeClock;
import io.weir.fixtures.ManualScheduler;
import io.weir.fixtures.MemorySnapshotStore;
import io.weir.fixtures.RecordingCheckpointListener;
import io.weir.fixtures.RecordingCheckpointListener.Failed;
import io.weir.state.SnapshotPart;
import io.weir.state.StateHandle;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CheckpointCoordinatorTest {
    private static final Duration INTERVAL = Duration.ofSeconds(1);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final InputPartition P0 = new InputPartition("in", 0);
    private static final InputPartition P1 = new InputPartition("in", 1);
    private static final Object FENCING = new Object();

    private final FakeClock clock = new FakeClock(50_000);
    private final ManualScheduler loop = new ManualScheduler(clock);
    private final ManualScheduler uploads = new ManualScheduler();
    private final ManualScheduler committer = new ManualScheduler();
    private final FakeCheckpointIo io = new FakeCheckpointIo();
    private final MemorySnapshotStore snapshots = new MemorySnapshotStore();
    private final RecordingCheckpointListener listener = new RecordingCheckpointListener();
    private CheckpointCoordinator coordinator;

    private CheckpointCoordinator start(int maxConcurrent, Duration minPause) {
        return start(maxConcurrent, minPause, 0);
    }

    private CheckpointCoordinator start(int maxConcurrent, Duration minPause, long lastCompletedId) {
        return start(maxConcurrent, minPause, lastCompletedId, INTERVAL);
    }

    private CheckpointCoordinator start(int maxConcurrent, Duration minPause, long lastCompletedId, Duration interval) {
        CheckpointSettings settings = new CheckpointSettings(interval, TIMEOUT, maxConcurrent, minPause);
        coordinator = new CheckpointCoordinator(new CheckpointCoordinator.Setup(
                settings,
                Map.of("t-0", List.of(P0), "t-1", List.of(P1)),
                lastCompletedId,
                io,
                snapshots,
                loop,
                uploads,
                committer,
                clock,
                listener));
        coordinator.start();
        return coordinator;
    }

    /** Runs the loop, uploads and committer until none has anything left to do. */
    private void settle() {
        int ran;
        do {
            ran = loop.runAll() + uploads.runAll() + committer.runAll();
        } while (ran > 0);
    }

    /** One interval of fake time on the loop: the ticker tries to trigger. */
    private void tick() {
        loop.advance(INTERVAL);
    }

    /** The source loop's answer to barrier n: positions 100+n and 200+n. */
    private void injected(long id) {
        coordinator.injected(id, Map.of(P0, 100 + id, P1, 200 + id), FENCING);
        loop.runAll();
    }

    private void ack(String task, long id) {
        ack(task, id, part(task, id));
    }

    private void ack(String task, long id, SnapshotPart part) {
        coordinator.acks().acknowledge(task, id, part);
        loop.runAll();
    }

    private void ackAll(long id) {
        ack("t-0", id);
        ack("t-1", id);
    }

    private static SnapshotPart part(String task, long id) {
        return (store, cancelled) -> {
            if (cancelled.getAsBoolean()) {
                throw new CancellationException();
            }
            return new StateHandle("fake", List.of(store.write(task + "/" + id, new byte[] {(byte) id})));
        };
    }

    /** Trigger (by one tick), inject and acknowledge n, then let everything run. */
    private void checkpoint(long id) {
        tick();
        assertEquals(id, last(io.injectRequests()));
        injected(id);
        ackAll(id);
        settle();
    }

    private static <T> T last(List<T> list) {
        return list.isEmpty() ? null : list.get(list.size() - 1);
    }

    private Failed onlyFailure() {
        List<Failed> failures = listener.failures();
        assertEquals(1, failures.size(), "failures: " + failures);
        return failures.get(0);
    }

    @Test
    void startOpensTheFirstEpochAndTheTickerTriggersEveryInterval() {
        start(1, Duration.ZERO);
        assertEquals(List.of("open 1"), io.log());

        loop.advance(INTERVAL.minusMillis(1));
        assertEquals(List.of("open 1"), io.log());
        loop.advance(Duration.ofMillis(1));

        assertEquals(List.of("open 1", "open 2", "inject 1"), io.log());
    }

    @Test
    void afterARestoreTheFirstCheckpointComesEarlyAndThenEveryInterval() {
        start(1, Duration.ZERO, 41);
        loop.advance(Duration.ofMillis(49));
        assertEquals(List.of("open 42"), io.log());
        loop.advance(Duration.ofMillis(1));
        assertEquals(List.of("open 42", "open 43", "inject 42"), io.log());
    }

    @Test
    void afterARestoreASkippedCheckpointIsTriedAgainSoonUntilOneCarriedInput() {
        start(1, Duration.ZERO, 41);
        loop.advance(Duration.ofMillis(50));
        assertEquals(List.of(42L), io.injectRequests());
        coordinator.skipped(42); // the restored partitions' first fetch has not come yet
        loop.runAll();

        loop.advance(Duration.ofMillis(50));
        assertEquals(List.of(42L, 42L), io.injectRequests(), "tried again 50 ms later, not an interval later");

        injected(42); // it carried input: from now on, every interval
        ackAll(42);
        settle();
        assertEquals(List.of(42L), io.committedIds());
        coordinator.triggerNow(); // as a drain or a full first epoch asks, 100 ms after the start
        loop.runAll();
        coordinator.skipped(43);
        loop.runAll();
        loop.advance(Duration.ofMillis(50));
        assertEquals(List.of(42L, 42L, 43L), io.injectRequests(), "no early retry once one carried input");
        loop.advance(Duration.ofMillis(900)); // the ticker's second run, 1,050 ms after the start
        assertEquals(List.of(42L, 42L, 43L, 43L), io.injectRequests());
    }

    @Test
    void aFreshStartsSkippedCheckpointWaitsForTheTicker() {
        start(1, Duration.ZERO);
        tick();
        coordinator.skipped(1);
        loop.runAll();
        loop.advance(INTERVAL.minusMillis(1));
        assertEquals(List.of(1L), io.injectRequests());
        loop.advance(Duration.ofMillis(1));
        assertEquals(List.of(1L, 1L), io.injectRequests());
    }

    @Test
    void afterARestoreWithIdleInputAndALongIntervalTheEarlyRetriesEndAfterASecond() {
        start(1, Duration.ZERO, 41, Duration.ofMinutes(1));
        int answered = skipEveryRequestFor(Duration.ofSeconds(3));
        // The ticker's first run at 50 ms, retries 50 ms after each skip within the first second:
        // 100, 150 … 950; then nothing until the ticker's next run, a minute after the start.
        assertEquals(19, answered, "requests: " + io.injectRequests());
    }

    /** Answers every barrier request as skipped (idle input) for {@code time}; returns how many came. */
    private int skipEveryRequestFor(Duration time) {
        int answered = 0;
        for (long t = 0; t < time.toMillis(); t += 50) {
            loop.advance(Duration.ofMillis(50));
            List<Long> requests = io.injectRequests();
            for (; answered < requests.size(); answered++) {
                coordinator.skipped(requests.get(answered));
                loop.runAll();
            }
        }
        return answered;
    }

    @Test
    void afterARestoreWithIdleInputTheEarlyRetriesEndAfterAnInterval() {
        start(1, Duration.ZERO, 41);
        skipEveryRequestFor(Duration.ofSeconds(2));
        // The ticker at 50 and 1,050 ms, and retries 50 ms after each skip while that is within an
        // interval of the start: 100, 150 … 950.
        List<Long> requests = io.injectRequests();
        assertEquals(20, requests.size(), "requests: " + requests);
        assertTrue(requests.stream().allMatch(id -> id == 42L), "a skipped id is reused: " + requests);
    }

    @Test
    void idsContinueAfterTheLastCompletedCheckpoint() {
        start(1, Duration.ZERO, 41);
        tick();

        assertEquals(List.of("open 42", "open 43", "inject 42"), io.log());
    }

    @Test
    void epochNPlusOneIsOpenedBeforeBarrierNIsInjected() {
        start(1, Duration.ZERO);
        for (long id = 1; id <= 5; id++) {
            checkpoint(id);
        }

        List<String> log = io.log();
        for (long id = 1; id <= 5; id++) {
            int open = log.indexOf("open " + (id + 1));
            int inject = log.indexOf("inject " + id);
            assertTrue(
                    open >= 0 && open < inject, "epoch " + (id + 1) + " not opened before barrier " + id + ": " + log);
        }
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), io.committedIds());
    }

    @Test
    void aCheckpointCommitsOnceInjectedAcknowledgedByEveryTaskAndWritten() {
        start(1, Duration.ZERO);
        tick();
        injected(1);
        ack("t-0", 1);
        settle();
        assertEquals(List.of(), io.committedIds(), "one task has not acknowledged");
        clock.advance(Duration.ofMillis(250));

        ack("t-1", 1);
        settle();

        FakeCheckpointIo.Commit commit = io.commits().get(0);
        assertEquals(1, commit.checkpointId());
        assertSame(FENCING, commit.fencingToken());
        assertEquals(Map.of(P0, 101L, P1, 201L), commit.positions());
        TaskCheckpoint t0 = commit.tasks().stream()
                .filter(t -> t.task().equals("t-0"))
                .findFirst()
                .orElseThrow();
        assertEquals(Map.of(P0, 101L), t0.positions());
        assertEquals("t-0/1", t0.state().files().get(0).name());
        assertEquals(2, commit.tasks().size());
        assertEquals(List.of(1L), listener.completedIds());
        assertEquals(250, listener.completed().get(0).durationMillis());
    }

    @Test
    void withoutTheSourcePositionsNothingCommits() {
        start(1, Duration.ZERO);
        tick();
        ackAll(1);
        settle();
        assertEquals(List.of(), io.committedIds());

        injected(1);
        settle();

        assertEquals(List.of(1L), io.committedIds());
    }

    @Test
    void triggersRespectMaxConcurrent() {
        start(2, Duration.ZERO);
        tick();
        injected(1);
        tick();
        injected(2);

        tick();
        tick();
        assertEquals(List.of(1L, 2L), io.injectRequests());

        ackAll(1);
        settle();
        tick();

        assertEquals(List.of(1L, 2L, 3L), io.injectRequests());
    }

    @Test
    void triggersRespectTheMinimumPauseAfterACompletion() {
        start(3, Duration.ofSeconds(5));
        checkpoint(1);
        long completedAt = clock.millis();

        for (int i = 0; i < 4; i++) {
            tick();
        }
        assertEquals(List.of(1L), io.injectRequests(), "triggered before the pause passed");
        tick();

        assertEquals(List.of(1L, 2L), io.injectRequests());
        assertEquals(completedAt + 5_000, clock.millis());
    }

    @Test
    void noCheckpointIsTriggeredWhileNoProducerIsFree() {
        start(1, Duration.ZERO);
        io.canOpenEpoch(false);
        tick();
        tick();
        assertEquals(List.of(), io.injectRequests());

        io.canOpenEpoch(true);
        tick();

        assertEquals(List.of(1L), io.injectRequests());
    }

    @Test
    void triggerNowTriggersWithoutWaitingForTheTicker() {
        start(1, Duration.ZERO);

        coordinator.triggerNow();
        loop.runAll();

        assertEquals(List.of(1L), io.injectRequests());
    }

    @Test
    void commitsHappenInIdOrderEvenWhenALaterCheckpointIsReadyFirst() {
        start(3, Duration.ZERO);
        tick();
        injected(1);
        tick();
        injected(2);
        ackAll(2);
        settle();
        assertEquals(List.of(), io.committedIds(), "checkpoint 2 committed before 1");

        ackAll(1);
        loop.runAll();
        uploads.runAll();
        loop.runAll();
        assertEquals(1, committer.queued(), "one commit at a time");
        settle();

        assertEquals(List.of(1L, 2L), io.committedIds());
        assertEquals(List.of(1L, 2L), listener.completedIds());
    }

    @Test
    void uploadsFinishingOutOfOrderStillCommitInOrder() {
        start(3, Duration.ZERO);
        tick();
        injected(1);
        tick();
        injected(2);
        ackAll(1);
        ackAll(2);
        // Run the uploads newest first.
        List<Runnable> queued = uploads.shutdownNow();
        for (int i = queued.size() - 1; i >= 0; i--) {
            queued.get(i).run();
        }
        settle();

        assertEquals(List.of(1L, 2L), io.committedIds());
    }

    @Test
    void aSkippedCheckpointReusesItsId() {
        start(1, Duration.ZERO);
        tick();
        coordinator.skipped(1);
        loop.runAll();

        tick();

        assertEquals(List.of(1L, 1L), io.injectRequests());
        injected(1);
        ackAll(1);
        settle();
        assertEquals(List.of(1L), io.committedIds());
    }

    @Test
    void aSkippedCheckpointCannotTimeOut() {
        start(1, Duration.ZERO);
        tick();
        coordinator.skipped(1);
        io.canOpenEpoch(false);

        loop.advance(TIMEOUT.multipliedBy(2));

        assertEquals(List.of(), listener.failures());
        assertEquals(List.of(1L), io.injectRequests());
    }

    @Test
    void noBarrierIsRequestedWhileTheSourceHasNotAnsweredThePreviousOne() {
        start(2, Duration.ZERO);
        tick();
        tick(); // the source loop has not answered barrier 1 yet

        assertEquals(List.of(1L), io.injectRequests());
        injected(1);
        tick();
        assertEquals(List.of(1L, 2L), io.injectRequests());
    }

    @Test
    void injectedIdsStayConsecutiveWhenASkipIsAnsweredLate() {
        start(2, Duration.ZERO);
        coordinator.triggerNow();
        coordinator.triggerNow();
        loop.runAll();
        // The source loop answers the requests in order: nothing came in before the first one.
        for (long id : io.injectRequests()) {
            coordinator.skipped(id);
        }
        loop.runAll();

        tick();

        // Tasks still write epoch 1: the next barrier must be barrier 1, or epoch 1's output would
        // never commit.
        assertEquals(1L, last(io.injectRequests()));
    }

    @Test
    void aTimeoutFailsTheCheckpointOnceAndNothingCommitsAfterwards() {
        start(2, Duration.ZERO);
        tick();
        injected(1);
        ack("t-0", 1);
        tick();
        injected(2);
        ackAll(2);
        settle();

        loop.advance(TIMEOUT);

        Failed failed = onlyFailure();
        assertEquals(1, failed.checkpointId());
        assertEquals(FailureReason.TIMEOUT, failed.reason());
        assertTrue(
                failed.cause().getMessage().contains("1 of 2 tasks"),
                failed.cause().getMessage());
        ack("t-1", 1);
        settle();
        loop.advance(TIMEOUT.multipliedBy(3));
        settle();
        assertEquals(List.of(), io.committedIds());
        assertEquals(List.of(1L, 2L), io.injectRequests(), "triggered after the failure");
        assertEquals(1, listener.failures().size());
    }

    @Test
    void aTimeoutWhileTheCommitIsOnItsWayLeavesTheOutcomeToTheCommit() {
        start(1, Duration.ZERO);
        tick();
        injected(1);
        ackAll(1);
        uploads.runAll();
        loop.runAll();
        assertEquals(1, committer.queued(), "the commit is submitted; the committer has not run it yet");

        loop.advance(TIMEOUT);

        // A slow commit (a loaded broker) is no timeout: it may well commit, and then the
        // checkpoint is complete — reported failed, it also failed the execution over for nothing.
        assertEquals(List.of(), listener.failures());
        settle();
        assertEquals(List.of(1L), io.committedIds());
        assertEquals(List.of(1L), listener.completedIds());
        assertEquals(List.of(), listener.failures());
    }

    @Test
    void anUploadFailureFailsTheCheckpointOnceAndNothingCommitsAfterwards() {
        start(2, Duration.ZERO);
        tick();
        injected(1);
        tick();
        injected(2);
        ackAll(2);
        ack("t-0", 1);
        ack("t-1", 1, (store, cancelled) -> {
            throw new IOException("disk full");
        });

        settle();

        Failed failed = onlyFailure();
        assertEquals(1, failed.checkpointId());
        assertEquals(FailureReason.SNAPSHOT_FAILED, failed.reason());
        assertTrue(failed.cause().getMessage().contains("t-1"), failed.cause().getMessage());
        assertEquals("disk full", failed.cause().getCause().getMessage());
        loop.advance(TIMEOUT.multipliedBy(2));
        settle();
        assertEquals(List.of(), io.committedIds());
        assertEquals(1, listener.failures().size());
    }

    @Test
    void aCommitFailureFailsTheCheckpointOnceAndNothingCommitsAfterwards() {
        start(2, Duration.ZERO);
        io.failCommits(new IllegalStateException("producer fenced"));
        tick();
        injected(1);
        tick();
        injected(2);
        ackAll(2);
        ackAll(1);

        settle();

        Failed failed = onlyFailure();
        assertEquals(1, failed.checkpointId());
        assertEquals(FailureReason.COMMIT_FAILED, failed.reason());
        assertEquals("producer fenced", failed.cause().getCause().getMessage());
        loop.advance(TIMEOUT.multipliedBy(2));
        settle();
        assertEquals(
                List.of("commit 1"),
                io.log().stream().filter(l -> l.startsWith("commit")).toList());
        assertEquals(List.of(), listener.completedIds());
        assertEquals(1, listener.failures().size());
    }

    @Test
    void aMissingPositionFailsTheCommit() {
        start(1, Duration.ZERO);
        tick();
        coordinator.injected(1, Map.of(P0, 5L), FENCING);
        ackAll(1);

        settle();

        assertEquals(FailureReason.COMMIT_FAILED, onlyFailure().reason());
        assertTrue(
                onlyFailure().cause().getMessage().contains("in-1"),
                onlyFailure().cause().getMessage());
        assertEquals(List.of(), io.committedIds());
    }

    @Test
    void stopCancelsUploadsAndTriggering() throws Exception {
        start(1, Duration.ZERO);
        tick();
        injected(1);
        ackAll(1);
        assertEquals(2, uploads.queued());

        Future<Future<?>> stopped = coordinator.stop();
        loop.runAll();

        assertTrue(stopped.isDone());
        assertNull(stopped.get(0, TimeUnit.SECONDS), "no commit was in flight");
        assertEquals(0, uploads.queued(), "uploads not cancelled");
        settle();
        loop.advance(TIMEOUT.multipliedBy(2));
        settle();
        assertEquals(0, snapshots.writes());
        assertEquals(List.of(1L), io.injectRequests());
        assertEquals(List.of(), io.committedIds());
        assertEquals(List.of(), listener.events(), "a stopped coordinator reported something");
    }

    @Test
    void stopReturnsTheCommitInFlight() throws Exception {
        start(1, Duration.ZERO);
        tick();
        injected(1);
        ackAll(1);
        loop.runAll();
        uploads.runAll();
        loop.runAll();
        assertEquals(1, committer.queued());

        Future<Future<?>> stopped = coordinator.stop();
        loop.runAll();
        Future<?> commit = stopped.get(0, TimeUnit.SECONDS);

        assertNotNull(commit);
        assertFalse(commit.isDone());
        committer.runAll();
        assertTrue(commit.isDone());
        assertEquals(List.of(1L), io.committedIds());
        loop.runAll();
        // The owner may have closed its state by now: a stopped coordinator tells nobody.
        assertEquals(List.of(), listener.completedIds(), "a commit that ended after the stop was reported");
    }

    @Test
    void acknowledgementsOfUnknownCheckpointsAreIgnored() {
        start(1, Duration.ZERO);

        ackAll(7);
        settle();

        assertEquals(0, uploads.executed());
        assertEquals(List.of(), listener.events());
    }

    @Test
    void aCompletedCheckpointReportsItsPhasesAndSizes() {
        start(1, Duration.ZERO);
        tick();
        long triggered = clock.millis();
        injected(1);
        clock.advance(Duration.ofMillis(30));
        coordinator.acks().acknowledge("t-0", 1, part("t-0", 1), 10);
        loop.runAll();
        clock.advance(Duration.ofMillis(40));
        coordinator.acks().acknowledge("t-1", 1, part("t-1", 1), 5);
        loop.runAll();
        clock.advance(Duration.ofMillis(100));
        uploads.runAll();
        loop.runAll(); // both uploaded, the commit is submitted
        clock.advance(Duration.ofMillis(7));
        committer.runAll();
        loop.runAll();

        CheckpointStats stats = listener.stats().get(0);
        assertEquals(1, stats.checkpointId());
        assertEquals(triggered, stats.startedAt());
        assertEquals(65, stats.alignmentMillis(), "the slowest task: acknowledged after 70 ms, 5 of them sync");
        assertEquals(10, stats.syncMillis());
        assertEquals(140, stats.uploadMillis(), "t-0 waited for its upload from 30 ms to 170 ms");
        assertEquals(7, stats.commitMillis());
        assertEquals(177, stats.totalMillis());
        assertEquals(2, stats.uploadedBytes(), "one byte per task");
        assertEquals(Map.of("t-0", 1L, "t-1", 1L), stats.stateBytes());
        assertEquals(List.of(1L), listener.completedIds());
    }

    @Test
    void aSkippedCheckpointIsReported() {
        start(1, Duration.ZERO);
        tick();
        coordinator.skipped(1);
        loop.runAll();

        assertEquals(List.of(new RecordingCheckpointListener.Skipped(1, true)), listener.events());
    }

    @Test
    void aCheckpointSkippedWhileAnEarlierOneIsStillInFlightIsNotIdle() {
        // A broker outage: checkpoint 1's tasks cannot acknowledge, the source reads nothing.
        start(2, Duration.ZERO);
        tick();
        injected(1);
        tick();
        coordinator.skipped(2);
        loop.runAll();

        assertEquals(
                List.of(new RecordingCheckpointListener.Skipped(2, false)),
                listener.events().stream()
                        .filter(RecordingCheckpointListener.Skipped.class::isInstance)
                        .toList());
    }
}
