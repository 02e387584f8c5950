package io.weir.checkpoint;

import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

class RestartStrategyProperties {

    @Property(tries = 500, seed = "99")
    void everyBackoffLiesWithinTheJitterBandOfItsUncappedDelayAndNeverAboveTheCap(
            @ForAll @IntRange(min = 1, max = 40) int failures,
            @ForAll @DoubleRange(min = 0, max = 1, maxIncluded = false) double random,
            @ForAll @DoubleRange(min = 0, max = 1) double jitter,
            @ForAll @IntRange(min = 1, max = 5_000) int initialMs,
            @ForAll @IntRange(min = 1, max = 600_000) int maxMs) {
        RestartStrategy restart =
                new RestartStrategy(RestartStrategyTest.exponential(initialMs, maxMs, 2, jitter, 0), () -> random);
        for (int n = 1; n <= failures; n++) {
            long delay = restart.onFailure(0).orElseThrow().toMillis();
            double capped = Math.min(initialMs * Math.pow(2, n - 1), maxMs);
            assertTrue(delay <= maxMs, "delay " + delay + " above the cap " + maxMs);
            assertTrue(delay >= Math.floor(capped * (1 - jitter)), "delay " + delay + " below the band of " + capped);
            assertTrue(delay <= Math.ceil(capped * (1 + jitter)), "delay " + delay + " above the band of " + capped);
        }
    }
}
