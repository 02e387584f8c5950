package io.weir.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.weir.checkpoint.BarrierDecision.Block;
import io.weir.checkpoint.BarrierDecision.Overtaken;
import io.weir.checkpoint.BarrierDecision.Snapshot;
import io.weir.checkpoint.BarrierDecision.Stale;
import io.weir.checkpoint.BarrierDecision.Track;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;

/**
 * The barrier handler against a model of its channels: random channel counts, barrier ids with gaps
 * per channel (a lost barrier), random delivery orders and aborts. Invariants are checked after
 * every step.
 */
class BarrierHandlerProperties {
    private static final int MAX_ID = 6;

    /** One delivery (a pick among the channels that may deliver) or, when abortId > 0, an abort. */
    record Step(int pick, long abortId) {}

    record Script(int channels, boolean align, boolean gaps, List<TreeSet<Long>> barriers, List<Step> steps) {}

    @Property(tries = 2000, seed = "20240611")
    void snapshotsHappenOnlyWhenEveryChannelDeliveredTheBarrier(@ForAll("scripts") Script script) {
        new Run(script).play();
    }

    @Property(tries = 500, seed = "20240612")
    void withoutLostBarriersOrAbortsEveryCheckpointSnapshotsOnceInOrder(@ForAll("completeScripts") Script script) {
        Run run = new Run(script);
        run.play();
        List<Long> expected = new ArrayList<>(script.barriers().get(0));
        assertEquals(expected, run.snapshots, "snapshots");
        assertEquals(List.of(), run.overtaken, "nothing can be overtaken when no barrier is lost");
    }

    @Provide
    Arbitrary<Script> scripts() {
        return scripts(true, true);
    }

    @Provide
    Arbitrary<Script> completeScripts() {
        return scripts(false, false);
    }

    private static Arbitrary<Script> scripts(boolean gaps, boolean aborts) {
        Arbitrary<Integer> channels = Arbitraries.integers().between(1, 4);
        Arbitrary<Boolean> align = Arbitraries.of(true, false);
        Arbitrary<TreeSet<Long>> ids =
                Arbitraries.longs().between(1, MAX_ID).set().ofMaxSize(MAX_ID).map(TreeSet::new);
        // About one step in thirteen is an abort, when aborts are wanted.
        Arbitrary<Step> step = Combinators.combine(
                        Arbitraries.integers().between(0, 12).withDistribution(RandomDistribution.uniform()),
                        Arbitraries.integers().between(0, 3),
                        Arbitraries.longs().between(1, MAX_ID))
                .as((kind, pick, id) -> new Step(pick, aborts && kind == 0 ? id : 0));
        return Combinators.combine(
                        channels, align, ids.list().ofSize(4), ids, step.list().ofMaxSize(40))
                .as((n, a, perChannel, shared, steps) -> {
                    List<TreeSet<Long>> barriers = new ArrayList<>();
                    for (int c = 0; c < n; c++) {
                        barriers.add(gaps ? perChannel.get(c) : shared);
                    }
                    return new Script(n, a, gaps, barriers, steps);
                });
    }

    /** Plays a script against a handler and a model of what each channel delivered. */
    private static final class Run {
        final Script script;
        final BarrierHandler handler;
        final List<List<Long>> delivered = new ArrayList<>();
        final List<List<Long>> left = new ArrayList<>();
        final List<Long> snapshots = new ArrayList<>();
        final List<Long> overtaken = new ArrayList<>();
        long finishedUpTo;

        Run(Script script) {
            this.script = script;
            this.handler = new BarrierHandler(script.channels(), script.align());
            for (int c = 0; c < script.channels(); c++) {
                delivered.add(new ArrayList<>());
                left.add(new ArrayList<>(script.barriers().get(c)));
            }
        }

        void play() {
            for (Step step : script.steps()) {
                if (step.abortId() > 0) {
                    handler.abort(step.abortId());
                    finishedUpTo = Math.max(finishedUpTo, step.abortId());
                } else {
                    List<Integer> eligible = new ArrayList<>();
                    for (int c = 0; c < script.channels(); c++) {
                        if (!left.get(c).isEmpty() && !handler.isBlocked(c)) {
                            eligible.add(c);
                        }
                    }
                    if (eligible.isEmpty()) {
                        continue;
                    }
                    int channel = eligible.get(step.pick() % eligible.size());
                    long id = left.get(channel).remove(0);
                    delivered.get(channel).add(id);
                    check(channel, id, handler.onBarrier(channel, id));
                }
                checkBlocking();
            }
            if (!script.gaps()) {
                // Nothing lost: whatever is left can always be delivered to the end.
                drain();
            }
        }

        private void drain() {
            boolean progress = true;
            while (progress) {
                progress = false;
                for (int c = 0; c < script.channels(); c++) {
                    if (!left.get(c).isEmpty() && !handler.isBlocked(c)) {
                        long id = left.get(c).remove(0);
                        delivered.get(c).add(id);
                        check(c, id, handler.onBarrier(c, id));
                        checkBlocking();
                        progress = true;
                    }
                }
            }
            for (int c = 0; c < script.channels(); c++) {
                assertEquals(List.of(), left.get(c), "channel " + c + " could not deliver everything");
            }
        }

        private void check(int channel, long id, BarrierDecision decision) {
            if (decision instanceof Overtaken o) {
                assertTrue(script.align(), "track mode never overtakes");
                assertTrue(o.abortedId() < id, "overtaken by an older id: " + decision);
                assertFalse(o.then() instanceof Overtaken, "overtaken twice: " + decision);
                overtaken.add(o.abortedId());
                finishedUpTo = Math.max(finishedUpTo, o.abortedId());
                decision = o.then();
            }
            if (decision instanceof Stale s) {
                assertEquals(id, s.checkpointId());
                return;
            }
            assertTrue(
                    id > finishedUpTo,
                    "barrier " + id + " is not stale although " + finishedUpTo + " finished: " + decision);
            if (decision instanceof Snapshot s) {
                assertEquals(id, s.checkpointId(), "snapshot of another id than the barrier that completed it");
                for (int c = 0; c < script.channels(); c++) {
                    assertTrue(
                            delivered.get(c).contains(id),
                            "snapshot " + id + " but channel " + c + " delivered only " + delivered.get(c));
                    if (script.align()) {
                        // Aligned: no channel went past the cut before the snapshot.
                        List<Long> d = delivered.get(c);
                        assertEquals(id, d.get(d.size() - 1), "channel " + c + " passed barrier " + id);
                    }
                }
                if (!snapshots.isEmpty()) {
                    assertTrue(
                            id > snapshots.get(snapshots.size() - 1),
                            "snapshots out of order: " + snapshots + " then " + id);
                }
                snapshots.add(id);
                finishedUpTo = id;
            } else if (decision instanceof Block b) {
                assertTrue(script.align(), "track mode blocked");
                assertEquals(channel, b.channel());
                assertEquals(id, handler.aligning());
            } else if (decision instanceof Track t) {
                assertFalse(script.align(), "align mode tracked");
                assertEquals(id, t.checkpointId());
            } else {
                fail("unexpected decision " + decision);
            }
        }

        private void checkBlocking() {
            long aligning = handler.aligning();
            if (!script.align()) {
                assertEquals(0, aligning);
            }
            assertTrue(aligning == 0 || aligning > finishedUpTo, "aligning finished checkpoint " + aligning);
            for (int c = 0; c < script.channels(); c++) {
                // A channel is blocked exactly when it delivered the aligning checkpoint's barrier.
                boolean expected = aligning != 0 && delivered.get(c).contains(aligning);
                assertEquals(
                        expected,
                        handler.isBlocked(c),
                        "channel " + c + " blocked, aligning " + aligning + ", delivered " + delivered.get(c));
            }
        }
    }
}
