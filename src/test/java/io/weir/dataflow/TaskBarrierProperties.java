package io.weir.dataflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.fixtures.CapturingAcks.Ack;
import io.weir.fixtures.RecordingEpochOutputs.Entry;
import io.weir.state.KeyedState;
import io.weir.state.Serde;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.LongStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;

/**
 * The barrier protocol over a real {@link Task}: random channel counts (1–4), interleavings of
 * records, barrier injections and task steps, and snapshot parts written late. In align mode snapshot
 * n holds exactly the records before barrier n on every channel, and each output lands in the epoch
 * the task was in when it sent it; in track mode a snapshot holds at least the records before the
 * cut. In both, every output of epoch n is flushed before the first send of epoch n+1.
 */
class TaskBarrierProperties {

    sealed interface Op {}

    record Rec(int channel, long timestamp) implements Op {}

    record Inject() implements Op {}

    record Run(int budget) implements Op {}

    /** Writes the pick-th (modulo) acknowledged snapshot part not yet written, and restores it. */
    record WritePart(int pick) implements Op {}

    record Script(int channels, boolean align, List<Op> ops) {}

    @Property(tries = 1000, seed = "4242")
    void alignedSnapshotsHoldExactlyTheRecordsBeforeTheCut(@ForAll("aligned") Script script) throws Exception {
        Outcome o = play(script);

        for (long n = 1; n <= o.injected(); n++) {
            for (int c = 0; c < script.channels(); c++) {
                assertEquals(o.cut(n)[c], o.restoredCount(n, c), "snapshot " + n + ", channel " + c);
            }
        }
        // Epoch n holds exactly the outputs of the records between barrier n-1 and barrier n.
        for (long e = 1; e <= o.injected() + 1; e++) {
            for (int c = 0; c < script.channels(); c++) {
                List<String> expected = new ArrayList<>();
                for (long k = o.cut(e - 1)[c] + 1; k <= o.cut(e)[c]; k++) {
                    expected.add("c" + c + ":" + k);
                }
                assertEquals(expected, o.values(e, c), "epoch " + e + ", channel " + c);
            }
        }
    }

    @Property(tries = 1000, seed = "4343")
    void trackedSnapshotsHoldAtLeastTheRecordsBeforeTheCut(@ForAll("tracked") Script script) throws Exception {
        Outcome o = play(script);

        for (long n = 1; n <= o.injected(); n++) {
            Ack ack = o.rig().acks.of(n);
            for (int c = 0; c < script.channels(); c++) {
                long restored = o.restoredCount(n, c);
                assertTrue(
                        restored >= o.cut(n)[c],
                        "snapshot " + n + ", channel " + c + ": " + restored + " records, but " + o.cut(n)[c]
                                + " were before the cut");
                // And exactly what the task had processed when it acknowledged.
                assertEquals(o.sendsBefore(ack.seq(), c), restored, "snapshot " + n + ", channel " + c);
            }
        }
    }

    /** Invariants both modes share, checked on every script. */
    private static void checkCommon(Script script, Outcome o) {
        TaskRig rig = o.rig();
        assertEquals(LongStream.rangeClosed(1, o.injected()).boxed().toList(), rig.acks.ids(), "acknowledged");
        assertEquals(List.of(), rig.outputs.violations(), "cross-epoch flush rule");
        List<Ack> acks = rig.acks.acks();
        for (Entry e : rig.outputs.log()) {
            if (!e.isFlush()) {
                long acksBefore = acks.stream().filter(a -> a.seq() <= e.seq()).count();
                assertEquals(1 + acksBefore, e.epoch(), "send " + e.valueText() + " after " + acksBefore + " acks");
            }
        }
        for (Ack ack : acks) {
            Entry last = null;
            for (Entry e : rig.outputs.log()) {
                if (e.epoch() == ack.checkpointId() && e.seq() < ack.seq()) {
                    last = e;
                }
            }
            assertTrue(last != null && last.isFlush(), "epoch " + ack.checkpointId() + " not flushed at its ack");
        }
        // Every record's output exactly once, in channel order.
        for (int c = 0; c < script.channels(); c++) {
            List<String> all = new ArrayList<>();
            for (long e = 1; e <= o.injected() + 1; e++) {
                all.addAll(o.values(e, c));
            }
            List<String> expected = new ArrayList<>();
            for (long k = 1; k <= o.put()[c]; k++) {
                expected.add("c" + c + ":" + k);
            }
            assertEquals(expected, all, "outputs of channel " + c);
        }
    }

    private static Outcome play(Script script) throws Exception {
        List<Supplier<Operator>> chain = List.of(CountPerKey::new);
        TaskRig rig = new TaskRig(script.channels(), script.align(), 1, chain);
        long[] put = new long[script.channels()];
        List<long[]> cuts = new ArrayList<>();
        cuts.add(new long[script.channels()]);
        Map<Long, KeyedState> restored = new HashMap<>();
        List<Ack> unwritten = new ArrayList<>();
        for (Op op : script.ops()) {
            if (op instanceof Rec r) {
                int c = r.channel() % script.channels();
                rig.record(c, r.timestamp());
                put[c]++;
            } else if (op instanceof Inject) {
                rig.inject();
                cuts.add(put.clone());
            } else if (op instanceof Run r) {
                rig.run(r.budget());
            } else if (op instanceof WritePart w) {
                collect(rig, unwritten, restored);
                if (!unwritten.isEmpty()) {
                    Ack ack = unwritten.remove(w.pick() % unwritten.size());
                    restored.put(ack.checkpointId(), rig.restore(ack.part()));
                }
            }
            assertEquals(List.of(), rig.outputs.violations(), "cross-epoch flush rule");
        }
        rig.drain();
        collect(rig, unwritten, restored);
        for (Ack ack : unwritten) {
            restored.put(ack.checkpointId(), rig.restore(ack.part()));
        }
        Outcome o = new Outcome(rig, put, cuts, restored);
        checkCommon(script, o);
        return o;
    }

    /** Adds acknowledgements not seen yet to {@code unwritten}. */
    private static void collect(TaskRig rig, List<Ack> unwritten, Map<Long, KeyedState> restored) {
        for (Ack ack : rig.acks.acks()) {
            if (!restored.containsKey(ack.checkpointId()) && !unwritten.contains(ack)) {
                unwritten.add(ack);
            }
        }
    }

    private record Outcome(TaskRig rig, long[] put, List<long[]> cuts, Map<Long, KeyedState> restored) {
        long injected() {
            return cuts.size() - 1;
        }

        /** Records put on each channel before barrier n (n = injected + 1: all of them). */
        long[] cut(long n) {
            return n < cuts.size() ? cuts.get((int) n) : put;
        }

        long restoredCount(long checkpoint, int channel) {
            KeyedState state = restored.get(checkpoint);
            state.setCurrentKey(TaskRig.bytes("c" + channel));
            Long count = state.valueState(CountPerKey.STATE, Serde.LONG).value();
            return count == null ? 0 : count;
        }

        List<String> values(long epoch, int channel) {
            return rig.outputs.values(epoch, TaskRig.SINK).stream()
                    .filter(v -> v.startsWith("c" + channel + ":"))
                    .toList();
        }

        long sendsBefore(long seq, int channel) {
            return rig.outputs.log().stream()
                    .filter(e -> !e.isFlush() && e.seq() < seq && e.valueText().startsWith("c" + channel + ":"))
                    .count();
        }
    }

    @Provide
    Arbitrary<Script> aligned() {
        return scripts(true);
    }

    @Provide
    Arbitrary<Script> tracked() {
        return scripts(false);
    }

    private static Arbitrary<Script> scripts(boolean align) {
        Arbitrary<Op> op = Combinators.combine(
                        Arbitraries.integers().between(0, 19).withDistribution(RandomDistribution.uniform()),
                        Arbitraries.integers().between(0, 3),
                        Arbitraries.longs().between(0, 20),
                        Arbitraries.integers().between(1, 4))
                .as((kind, channel, timestamp, n) -> {
                    if (kind < 10) {
                        return new Rec(channel, timestamp);
                    } else if (kind < 12) {
                        return new Inject();
                    } else if (kind < 18) {
                        return new Run(n);
                    }
                    return new WritePart(n);
                });
        return Combinators.combine(
                        Arbitraries.integers().between(1, 4), op.list().ofMaxSize(80))
                .as((channels, ops) -> new Script(channels, align, ops));
    }
}
