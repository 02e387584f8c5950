package io.weir.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weir.dataflow.Event;
import io.weir.fixtures.OperatorHarness;
import io.weir.state.Serde;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The stream-stream join against a model: records of both sides with random keys and times, out
 * of order within the watermark's bound, fed as a task feeds them (the watermark, the lowest over
 * the two sides of their highest time less the bound, moves after each record). The model pairs
 * every stream record with every other record of its key at most {@code within} apart, and a left
 * join adds each stream record without a partner whose window the final watermark closed. The join
 * must send exactly that, each once, and hold no state once the watermark passed everything.
 */
class JoinProperties {
    private static final String OTHER = "payments";
    private static final List<String> KEYS = List.of("k1", "k2", "k3");

    @Property(tries = 200)
    void theJoinSendsExactlyTheModelsPairsAndClosedUnmatchedRecords(
            @ForAll @IntRange(min = 1, max = 120) int count,
            @ForAll @LongRange(min = 0, max = 50) long within,
            @ForAll @LongRange(min = 0, max = 30) long bound,
            @ForAll boolean left,
            @ForAll long seed) {
        java.util.Random random = new java.util.Random(seed);
        // {id, side (0 stream, 1 other), key, ts}, in the order they arrive
        List<long[]> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long base = i * 3L;
            records.add(new long[] {i, random.nextInt(2), random.nextInt(KEYS.size()), base});
        }
        // Disorder within the bound: a record may arrive after later ones by at most bound ms.
        for (long[] r : records) {
            r[3] = Math.max(0, r[3] - (bound == 0 ? 0 : random.nextLong(bound + 1)));
        }
        List<long[]> arrival = records; // in id order: each record's time is at least the last base less the bound

        OperatorHarness h = new OperatorHarness(new Join(OTHER, Codecs.JSON, within, left, "other"));
        long[] maxTs = {Long.MIN_VALUE, Long.MIN_VALUE};
        List<Event> out = new ArrayList<>();
        try {
            for (long[] r : arrival) {
                h.inputTopic = r[1] == 0 ? "orders" : OTHER;
                int before = h.emitted.size();
                h.process(KEYS.get((int) r[2]), Map.of(r[1] == 0 ? "id" : "pid", r[0]), r[3]);
                out.addAll(h.emitted.subList(before, h.emitted.size()));
                maxTs[(int) r[1]] = Math.max(maxTs[(int) r[1]], r[3]);
                out.addAll(h.advanceWatermark(watermark(maxTs, bound)));
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        long finalWatermark = watermark(maxTs, bound);

        List<String> expected = new ArrayList<>();
        for (long[] s : records) {
            if (s[1] != 0) {
                continue;
            }
            boolean matched = false;
            for (long[] o : records) {
                if (o[1] == 1 && o[2] == s[2] && Math.abs(o[3] - s[3]) <= within) {
                    expected.add(s[0] + "/" + o[0]);
                    matched = true;
                }
            }
            if (left && !matched && finalWatermark != Long.MIN_VALUE && s[3] + within + 1 <= finalWatermark) {
                expected.add(s[0] + "/-");
            }
        }
        List<String> actual = new ArrayList<>();
        for (Event e : out) {
            Map<?, ?> v = (Map<?, ?>) e.value();
            Object other = v.get("other");
            actual.add(v.get("id") + "/" + (other instanceof Map<?, ?> m ? m.get("pid") : "-"));
        }
        Collections.sort(expected);
        Collections.sort(actual);
        assertEquals(expected, actual, "seed " + seed);

        // Once the watermark passed every record, nothing is left in state.
        try {
            h.advanceWatermark(Long.MAX_VALUE);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        Map<String, Integer> remaining = new HashMap<>();
        for (String key : KEYS) {
            h.state.setCurrentKey(key.getBytes(StandardCharsets.UTF_8));
            int n = h.state
                            .mapState(Join.streamState(OTHER), Serde.BYTES, Serde.BYTES)
                            .entries()
                            .size()
                    + h.state
                            .mapState(Join.otherState(OTHER), Serde.BYTES, Serde.BYTES)
                            .entries()
                            .size();
            if (n > 0) {
                remaining.put(key, n);
            }
        }
        assertEquals(Map.of(), remaining, "state left after the final watermark");
    }

    private static long watermark(long[] maxTs, long bound) {
        long min = Math.min(maxTs[0], maxTs[1]);
        return min == Long.MIN_VALUE ? Long.MIN_VALUE : min - bound;
    }
}
