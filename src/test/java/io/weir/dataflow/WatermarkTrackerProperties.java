package io.weir.dataflow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The watermark against a model that recomputes it from scratch after every step: per channel the
 * highest timestamp so far less the bound, over the channels that delivered within idle-after,
 * never going back; a snapshot restored into a fresh tracker goes on the same way.
 */
class WatermarkTrackerProperties {
    /** A record on a channel at a time, or (channel -1) only time passing and an idleness check. */
    record Step(int channel, long ts, long advance) {}

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Step> step = Combinators.combine(
                        Arbitraries.integers().between(-1, 2),
                        Arbitraries.longs().between(0, 10_000),
                        Arbitraries.longs().between(0, 3_000))
                .as(Step::new);
        return step.list().ofMaxSize(60);
    }

    @Property
    void theWatermarkIsTheLowestOverActiveChannelsOfTheirHighestTimestampLessTheBound(
            @ForAll("steps") List<Step> steps,
            @ForAll @IntRange(min = 0, max = 2_000) int bound,
            @ForAll @IntRange(min = 0, max = 5_000) int idleAfter,
            @ForAll @IntRange(min = 0, max = 60) int restoreAt) {
        int channels = 3;
        long now = 0;
        WatermarkTracker tracker = new WatermarkTracker(new String[] {"a-0", "a-1", "a-2"}, bound, idleAfter, now);
        long[] max = new long[channels];
        Arrays.fill(max, Long.MIN_VALUE);
        long[] last = new long[channels];
        long model = Long.MIN_VALUE;
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            now += s.advance();
            if (i == restoreAt) {
                // A restart: a fresh tracker from the snapshot, every channel active again from now.
                WatermarkTracker restored =
                        new WatermarkTracker(new String[] {"a-0", "a-1", "a-2"}, bound, idleAfter, now);
                restored.restore(tracker.snapshot());
                tracker = restored;
                Arrays.fill(last, now);
            }
            if (s.channel() >= 0) {
                tracker.onRecord(s.channel(), s.ts(), now);
                max[s.channel()] = Math.max(max[s.channel()], s.ts());
                last[s.channel()] = now;
            }
            tracker.checkIdle(now);
            long min = Long.MAX_VALUE;
            boolean anyActive = false;
            for (int c = 0; c < channels; c++) {
                boolean idle = idleAfter > 0 && now - last[c] >= idleAfter;
                if (!idle) {
                    anyActive = true;
                    min = Math.min(min, max[c] == Long.MIN_VALUE ? Long.MIN_VALUE : max[c] - bound);
                }
            }
            if (anyActive) {
                model = Math.max(model, min);
            }
            assertEquals(model, tracker.watermark(), "after step " + i + " " + s);
        }
    }

    @Property
    void markersGiveTheLowestUpstreamWatermarkOnceAllUpstreamTasksWereHeard(
            @ForAll @net.jqwik.api.constraints.Size(max = 40) List<@IntRange(min = 0, max = 3) Integer> tasks,
            @ForAll @net.jqwik.api.constraints.Size(max = 40) List<@IntRange(min = -1, max = 1_000) Integer> marks) {
        WatermarkTracker tracker = new WatermarkTracker(new String[] {"r-0"}, 0, 0, 0);
        long[] upstream = new long[4];
        Arrays.fill(upstream, Long.MIN_VALUE);
        boolean[] heard = new boolean[4];
        boolean[] idle = new boolean[4];
        long model = Long.MIN_VALUE;
        for (int i = 0; i < Math.min(tasks.size(), marks.size()); i++) {
            int t = tasks.get(i);
            int m = marks.get(i);
            tracker.onMarker(0, "up-" + t, 4, m < 0 ? WatermarkTracker.IDLE : m);
            heard[t] = true;
            if (m >= 0) {
                // Back from idle, an upstream task's watermark is what it says now.
                upstream[t] = idle[t] ? m : Math.max(upstream[t], m);
            }
            idle[t] = m < 0;
            boolean all = heard[0] && heard[1] && heard[2] && heard[3];
            long min = Long.MAX_VALUE;
            boolean anyActive = false;
            for (int u = 0; u < 4; u++) {
                if (!idle[u]) {
                    anyActive = true;
                    min = Math.min(min, upstream[u]);
                }
            }
            if (all && anyActive) {
                model = Math.max(model, min);
            }
            assertEquals(model, tracker.watermark(), "after marker " + i);
        }
    }
}
