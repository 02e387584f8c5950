package io.weir.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weir.fixtures.OperatorHarness;
import io.weir.state.Serde;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/** Window assignment against a model that tries every candidate window. */
class WindowsProperties {

    @Property
    void fixedWindowsAreExactlyThoseAlignedWindowsThatHoldTheTimestamp(
            @ForAll @LongRange(min = -1_000_000, max = 1_000_000) long ts,
            @ForAll @IntRange(min = 1, max = 50) int advance,
            @ForAll @IntRange(min = 1, max = 8) int hops) {
        long size = (long) advance * hops;
        List<Long> model = new ArrayList<>();
        for (long start = ts - size - advance; start <= ts + advance; start++) {
            if (Math.floorMod(start, advance) == 0 && start <= ts && ts < start + size) {
                model.add(0, start);
            }
        }
        assertEquals(model, Windows.hopping(size, advance).starts(ts));
        assertEquals(hops, model.size(), "a record is in size / advance windows");
    }

    @Property
    void tumblingWindowsHoldEachTimestampOnce(
            @ForAll @LongRange(min = -1_000_000, max = 1_000_000) long ts,
            @ForAll @IntRange(min = 1, max = 100_000) int size) {
        List<Long> starts = Windows.tumbling(size).starts(ts);
        assertEquals(1, starts.size());
        long start = starts.get(0);
        assertEquals(0, Math.floorMod(start, size));
        assertEquals(true, start <= ts && ts < start + size);
    }

    /**
     * Records of one key, in any order (nothing late): the sessions the operator keeps are the
     * model's, which sorts the timestamps and cuts where two neighbours are more than a gap apart.
     */
    @Property
    void sessionsMergeAsTheModelSays(
            @ForAll @Size(min = 1, max = 40) List<@IntRange(min = 0, max = 10_000) Integer> times,
            @ForAll @IntRange(min = 1, max = 2_000) int gap)
            throws Exception {
        Aggregate.Spec spec = new Aggregate.Spec("k", "n", Map.of(), Map.of(), Map.of(), Map.of(), Map.of(), Map.of());
        OperatorHarness h = new OperatorHarness(
                new WindowedAggregate(spec, Windows.session(gap), 0, WindowedAggregate.Emit.ON_CLOSE, null));
        for (int t : times) {
            h.process("k", Map.of(), t);
        }
        TreeMap<Long, long[]> model = new TreeMap<>(); // start -> {end, count}
        List<Integer> sorted = new ArrayList<>(times);
        sorted.sort(null);
        long start = sorted.get(0);
        long last = start;
        long n = 0;
        for (int t : sorted) {
            if (t - last > gap) {
                model.put(start, new long[] {last + gap, n});
                start = t;
                n = 0;
            }
            last = t;
            n++;
        }
        model.put(start, new long[] {last + gap, n});

        h.state.setCurrentKey("k".getBytes(StandardCharsets.UTF_8));
        TreeMap<Long, long[]> kept = new TreeMap<>();
        for (Map.Entry<Long, Object[]> e : h.state
                .mapState(WindowedAggregate.STATE, Serde.LONG, new Accumulators(2))
                .entries()) {
            kept.put(e.getKey(), new long[] {(Long) e.getValue()[0], (Long) e.getValue()[1]});
        }
        assertEquals(describe(model), describe(kept), "times " + times + ", gap " + gap);
        assertEquals(model.size(), h.advanceWatermark(Long.MAX_VALUE).size(), "each session closes once");
    }

    private static String describe(TreeMap<Long, long[]> sessions) {
        StringBuilder b = new StringBuilder();
        sessions.forEach((s, v) -> b.append('[')
                .append(s)
                .append(',')
                .append(v[0])
                .append(")x")
                .append(v[1])
                .append(' '));
        return b.toString();
    }
}
