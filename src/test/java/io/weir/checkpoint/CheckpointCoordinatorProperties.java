package io.weir.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.element.InputPartition;
import io.weir.fixtures.FakeCheckpointIo;
import io.weir.fixtures.FakeClock;
import io.weir.fixtures.ManualScheduler;
import io.weir.fixtures.MemorySnapshotStore;
import io.weir.fixtures.RecordingCheckpointListener;
import io.weir.state.SnapshotPart;
import io.weir.state.StateHandle;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;

/**
 * The coordinator under random schedules: ticks, the source loop's answers (injected or skipped),
 * acknowledgements in any order, uploads finishing in any order, commits, failing uploads and
 * commits, and time passing beyond the timeout. After every step: the barriers that reach tasks
 * are numbered without gaps, commits go strictly in id order and only for complete checkpoints,
 * epoch n+1 opens before barrier n, and a failure is reported at most once with nothing new
 * committed after it. Without failures, every injected checkpoint commits in the end.
 */
class CheckpointCoordinatorProperties {
    private static final List<String> TASKS = List.of("t-0", "t-1", "t-2");
    private static final Duration INTERVAL = Duration.ofMillis(100);
    private static final Duration TIMEOUT = Duration.ofMillis(5_000);

    sealed interface Op {}

    record Tick() implements Op {}

    record Answer(boolean skip) implements Op {}

    record Ack(int task, int pick, boolean failUpload) implements Op {}

    record RunLoop() implements Op {}

    record RunUpload(int pick) implements Op {}

    record RunCommitter() implements Op {}

    record FailCommits() implements Op {}

    record Wait(long millis) implements Op {}

    record Script(int maxConcurrent, List<Op> ops) {}

    @Property(tries = 1000, seed = "5150", edgeCases = EdgeCasesMode.NONE)
    void commitsAreInOrderCompleteAndGaplessUnderAnySchedule(@ForAll("scripts") Script script) {
        new Sim(script.maxConcurrent()).play(script.ops());
    }

    private static final class Sim {
        final FakeClock clock = new FakeClock();
        final ManualScheduler loop = new ManualScheduler(clock);
        final ManualScheduler uploads = new ManualScheduler();
        final ManualScheduler committer = new ManualScheduler();
        final FakeCheckpointIo io = new FakeCheckpointIo();
        final MemorySnapshotStore snapshots = new MemorySnapshotStore();
        final RecordingCheckpointListener listener = new RecordingCheckpointListener();
        final int maxConcurrent;
        final CheckpointCoordinator coordinator;
        final Map<String, InputPartition> inputs = Map.of(
                "t-0",
                new InputPartition("in", 0),
                "t-1",
                new InputPartition("in", 1),
                "t-2",
                new InputPartition("in", 2));
        /** Ids answered "injected", in answer order. */
        final List<Long> injected = new ArrayList<>();

        final Set<String> acked = new HashSet<>();
        int answered;
        int skips;
        int commitsAllowedAfterFailure = -1;

        Sim(int maxConcurrent) {
            this.maxConcurrent = maxConcurrent;
            Map<String, List<InputPartition>> taskInputs = Map.of(
                    "t-0",
                    List.of(inputs.get("t-0")),
                    "t-1",
                    List.of(inputs.get("t-1")),
                    "t-2",
                    List.of(inputs.get("t-2")));
            coordinator = new CheckpointCoordinator(new CheckpointCoordinator.Setup(
                    new CheckpointSettings(INTERVAL, TIMEOUT, maxConcurrent, Duration.ZERO),
                    taskInputs,
                    0,
                    io,
                    snapshots,
                    loop,
                    uploads,
                    committer,
                    clock,
                    listener));
            coordinator.start();
        }

        void play(List<Op> ops) {
            for (Op op : ops) {
                step(op);
                check();
            }
            if (listener.failures().isEmpty()) {
                drain();
                check();
                if (listener.failures().isEmpty()) {
                    assertEquals(injected, io.committedIds(), "every injected checkpoint commits");
                }
            }
        }

        void step(Op op) {
            if (op instanceof Tick) {
                loop.advance(INTERVAL);
            } else if (op instanceof Answer a) {
                answer(a.skip());
            } else if (op instanceof Ack a) {
                List<Long> open = new ArrayList<>();
                String task = TASKS.get(a.task());
                for (long id : injected) {
                    if (!acked.contains(task + "/" + id)) {
                        open.add(id);
                    }
                }
                if (!open.isEmpty()) {
                    long id = open.get(a.pick() % open.size());
                    acked.add(task + "/" + id);
                    coordinator.acks().acknowledge(task, id, part(task, id, a.failUpload()));
                }
            } else if (op instanceof RunLoop) {
                loop.runAll();
            } else if (op instanceof RunUpload u) {
                int queued = uploads.queued();
                if (queued > 0) {
                    uploads.runQueued(u.pick() % queued);
                }
            } else if (op instanceof RunCommitter) {
                committer.runNext();
            } else if (op instanceof FailCommits) {
                io.failCommits(new IOException("fenced"));
            } else if (op instanceof Wait w) {
                loop.advance(Duration.ofMillis(w.millis()));
            }
        }

        /** The source loop answers the oldest request it has not answered. */
        void answer(boolean skip) {
            List<Long> requests = io.injectRequests();
            if (answered >= requests.size()) {
                return;
            }
            long id = requests.get(answered++);
            if (skip) {
                skips++;
                coordinator.skipped(id);
            } else {
                injected.add(id);
                Map<InputPartition, Long> positions =
                        Map.of(inputs.get("t-0"), id, inputs.get("t-1"), id, inputs.get("t-2"), id);
                coordinator.injected(id, positions, "token");
            }
        }

        static SnapshotPart part(String task, long id, boolean fail) {
            return (store, cancelled) -> {
                if (cancelled.getAsBoolean()) {
                    throw new CancellationException();
                }
                if (fail) {
                    throw new IOException("upload of " + task + " failed");
                }
                return new StateHandle("fake", List.of(store.write(task + "/" + id, new byte[] {1})));
            };
        }

        void drain() {
            for (int round = 0; round < 1000; round++) {
                while (answered < io.injectRequests().size()) {
                    answer(false);
                }
                for (String task : TASKS) {
                    for (long id : injected) {
                        if (acked.add(task + "/" + id)) {
                            coordinator.acks().acknowledge(task, id, part(task, id, false));
                        }
                    }
                }
                int ran = loop.runAll() + uploads.runAll() + committer.runAll();
                if (ran == 0 && answered == io.injectRequests().size()) {
                    return;
                }
            }
            throw new AssertionError("the coordinator did not settle");
        }

        void check() {
            List<String> log = io.log();
            // Barriers reach the tasks without gaps: 1, 2, 3, ...
            for (int i = 0; i < injected.size(); i++) {
                assertEquals(i + 1, injected.get(i), "injected barriers " + injected);
            }
            // Epoch n+1 is open before barrier n is requested.
            for (int i = 0; i < log.size(); i++) {
                if (log.get(i).startsWith("inject ")) {
                    long id = Long.parseLong(log.get(i).substring(7));
                    assertTrue(
                            log.subList(0, i).contains("open " + (id + 1)), "barrier " + id + " before its next epoch");
                }
            }
            // Commits strictly in id order, each of a complete checkpoint.
            List<Long> commitCalls = log.stream()
                    .filter(l -> l.startsWith("commit "))
                    .map(l -> Long.parseLong(l.substring(7)))
                    .toList();
            for (int i = 0; i < commitCalls.size(); i++) {
                assertEquals(i + 1, commitCalls.get(i), "commits " + commitCalls);
            }
            for (FakeCheckpointIo.Commit c : io.commits()) {
                assertTrue(injected.contains(c.checkpointId()), "commit of " + c.checkpointId() + " never injected");
                assertEquals(TASKS.size(), c.tasks().size());
                for (TaskCheckpoint t : c.tasks()) {
                    assertEquals(
                            t.task() + "/" + c.checkpointId(),
                            t.state().files().get(0).name());
                    assertEquals(Map.of(inputs.get(t.task()), c.checkpointId()), t.positions());
                }
            }
            // In flight: requested, not skipped, not committed.
            long inFlight =
                    io.injectRequests().size() - skips - io.committedIds().size();
            assertTrue(inFlight <= maxConcurrent || !listener.failures().isEmpty(), inFlight + " in flight");
            assertTrue(io.injectRequests().size() - answered <= 1, "more than one unanswered barrier request");
            // A failure is reported once; afterwards only the commit already submitted may run.
            assertTrue(listener.failures().size() <= 1, "failures " + listener.failures());
            if (!listener.failures().isEmpty()) {
                if (commitsAllowedAfterFailure < 0) {
                    commitsAllowedAfterFailure = commitCalls.size() + committer.queued();
                }
                assertTrue(commitCalls.size() <= commitsAllowedAfterFailure, "committed after the failure");
            }
        }
    }

    @Provide
    Arbitrary<Script> scripts() {
        // Half the scripts are calm (failures rare, so many checkpoints complete), half are faulty.
        Arbitrary<List<Op>> calm = ops(0).list().ofMaxSize(200).withSizeDistribution(RandomDistribution.uniform());
        Arbitrary<List<Op>> faulty = ops(2).list().ofMaxSize(200).withSizeDistribution(RandomDistribution.uniform());
        return Combinators.combine(Arbitraries.integers().between(1, 3), Arbitraries.oneOf(calm, faulty))
                .as(Script::new);
    }

    /** Ops where about {@code faults} in a hundred are a failing upload, a failing commit or a long wait. */
    private static Arbitrary<Op> ops(int faults) {
        return Combinators.combine(
                        Arbitraries.integers().between(0, 99).withDistribution(RandomDistribution.uniform()),
                        Arbitraries.integers().between(0, TASKS.size() - 1),
                        Arbitraries.integers().between(0, 7),
                        Arbitraries.longs().between(1, 2_000))
                .as((kind, task, pick, millis) -> {
                    if (kind < faults) {
                        return switch (pick % 3) {
                            case 0 -> new Ack(task, pick, true);
                            case 1 -> new FailCommits();
                            default -> new Wait(millis * 3);
                        };
                    } else if (kind < 18) {
                        return new Tick();
                    } else if (kind < 34) {
                        return new Answer(pick == 0);
                    } else if (kind < 60) {
                        return new Ack(task, pick, false);
                    } else if (kind < 73) {
                        return new RunLoop();
                    } else if (kind < 86) {
                        return new RunUpload(pick);
                    } else if (kind < 98) {
                        return new RunCommitter();
                    }
                    return new Wait(millis / 4);
                });
    }
}
