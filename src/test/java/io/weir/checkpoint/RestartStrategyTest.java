package io.weir.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.checkpoint.RestartStrategy.Kind;
import io.weir.checkpoint.RestartStrategy.Settings;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RestartStrategyTest {
    private static final double JUST_BELOW_ONE = Math.nextDown(1.0);

    private static Settings fixedDelay(Duration delay, int attempts) {
        return new Settings(Kind.FIXED_DELAY, delay, Duration.ZERO, Duration.ZERO, 1, 0, attempts, 0, Duration.ZERO);
    }

    /** Exponential-backoff settings; the properties use it too. */
    static Settings exponential(long initialMs, long maxMs, double multiplier, double jitter, int attempts) {
        return new Settings(
                Kind.EXPONENTIAL_BACKOFF,
                Duration.ZERO,
                Duration.ofMillis(initialMs),
                Duration.ofMillis(maxMs),
                multiplier,
                jitter,
                attempts,
                0,
                Duration.ZERO);
    }

    private static Settings failureRate(Duration delay, int maxFailures, Duration window) {
        return new Settings(Kind.FAILURE_RATE, delay, Duration.ZERO, Duration.ZERO, 1, 0, 0, maxFailures, window);
    }

    private static Optional<Duration> ms(long millis) {
        return Optional.of(Duration.ofMillis(millis));
    }

    @Test
    void fixedDelayWaitsTheSameDelayForEachAttemptThenGivesUp() {
        RestartStrategy restart = new RestartStrategy(fixedDelay(Duration.ofSeconds(3), 3), () -> 0.5);

        assertEquals(Optional.of(Duration.ofSeconds(3)), restart.onFailure(0));
        assertEquals(Optional.of(Duration.ofSeconds(3)), restart.onFailure(1));
        assertEquals(Optional.of(Duration.ofSeconds(3)), restart.onFailure(2));
        assertEquals(Optional.empty(), restart.onFailure(3));
    }

    @Test
    void fixedDelayWithoutAnAttemptLimitNeverGivesUp() {
        RestartStrategy restart = new RestartStrategy(fixedDelay(Duration.ofSeconds(1), 0), () -> 0.5);

        for (int i = 0; i < 1000; i++) {
            assertEquals(Optional.of(Duration.ofSeconds(1)), restart.onFailure(i));
        }
    }

    @Test
    void progressStartsTheFixedDelayAttemptsOver() {
        RestartStrategy restart = new RestartStrategy(fixedDelay(Duration.ofSeconds(1), 2), () -> 0.5);
        restart.onFailure(0);
        restart.onFailure(1);

        restart.onProgress();

        assertEquals(Optional.of(Duration.ofSeconds(1)), restart.onFailure(2));
        assertEquals(Optional.of(Duration.ofSeconds(1)), restart.onFailure(3));
        assertEquals(Optional.empty(), restart.onFailure(4));
    }

    @Test
    void exponentialBackoffDoublesUpToItsCap() {
        // A random of 0.5 is the middle of the jitter range: no jitter.
        RestartStrategy restart = new RestartStrategy(exponential(1_000, 10_000, 2, 0.2, 0), () -> 0.5);

        assertEquals(ms(1_000), restart.onFailure(0));
        assertEquals(ms(2_000), restart.onFailure(0));
        assertEquals(ms(4_000), restart.onFailure(0));
        assertEquals(ms(8_000), restart.onFailure(0));
        assertEquals(ms(10_000), restart.onFailure(0));
        assertEquals(ms(10_000), restart.onFailure(0));
    }

    @Test
    void exponentialJitterStaysWithinItsShareOfTheDelay() {
        RestartStrategy low = new RestartStrategy(exponential(1_000, 60_000, 2, 0.2, 0), () -> 0.0);
        RestartStrategy high = new RestartStrategy(exponential(1_000, 60_000, 2, 0.2, 0), () -> JUST_BELOW_ONE);

        assertEquals(ms(800), low.onFailure(0));
        assertEquals(ms(1_600), low.onFailure(0));
        assertEquals(ms(1_200), high.onFailure(0));
        assertEquals(ms(2_400), high.onFailure(0));
    }

    @Test
    void jitterNeverTakesTheDelayAboveTheCap() {
        RestartStrategy high = new RestartStrategy(exponential(1_000, 5_000, 2, 0.5, 0), () -> JUST_BELOW_ONE);
        for (int i = 0; i < 3; i++) {
            high.onFailure(0);
        }

        assertEquals(ms(5_000), high.onFailure(0));
        assertEquals(ms(5_000), high.onFailure(0));
    }

    @Test
    void exponentialBackoffGivesUpAfterItsAttempts() {
        RestartStrategy restart = new RestartStrategy(exponential(100, 1_000, 2, 0, 2), () -> 0.5);

        assertEquals(ms(100), restart.onFailure(0));
        assertEquals(ms(200), restart.onFailure(0));
        assertEquals(Optional.empty(), restart.onFailure(0));
    }

    @Test
    void progressStartsTheBackoffOver() {
        RestartStrategy restart = new RestartStrategy(exponential(100, 10_000, 3, 0, 0), () -> 0.5);
        restart.onFailure(0);
        restart.onFailure(0);
        assertEquals(ms(900), restart.onFailure(0));

        restart.onProgress();

        assertEquals(ms(100), restart.onFailure(0));
    }

    @Test
    void theExponentialShortcutUsesDoublingAndTwentyPercentJitter() {
        Settings s = Settings.exponential(Duration.ofSeconds(1), Duration.ofMinutes(1));

        assertEquals(Kind.EXPONENTIAL_BACKOFF, s.kind());
        assertEquals(2.0, s.multiplier());
        assertEquals(0.2, s.jitter());
        assertEquals(0, s.attempts());
        assertEquals(ms(800), new RestartStrategy(s, () -> 0.0).onFailure(0));
    }

    @Test
    void failureRateToleratesMaxFailuresWithinTheWindow() {
        RestartStrategy restart =
                new RestartStrategy(failureRate(Duration.ofSeconds(2), 2, Duration.ofMinutes(1)), () -> 0.5);

        assertEquals(Optional.of(Duration.ofSeconds(2)), restart.onFailure(0));
        assertEquals(Optional.of(Duration.ofSeconds(2)), restart.onFailure(10_000));
        assertEquals(Optional.empty(), restart.onFailure(20_000));
    }

    @Test
    void failuresOlderThanTheWindowNoLongerCount() {
        RestartStrategy restart =
                new RestartStrategy(failureRate(Duration.ofSeconds(2), 2, Duration.ofMinutes(1)), () -> 0.5);
        restart.onFailure(0);
        restart.onFailure(10_000);

        // The failure at 0 is exactly one window old at 60 000: out of the window.
        assertEquals(Optional.of(Duration.ofSeconds(2)), restart.onFailure(60_000));
        assertEquals(Optional.empty(), restart.onFailure(69_999));
    }

    @Test
    void progressDoesNotForgiveFailuresWithinTheRateWindow() {
        RestartStrategy restart =
                new RestartStrategy(failureRate(Duration.ofSeconds(2), 1, Duration.ofMinutes(1)), () -> 0.5);
        restart.onFailure(0);

        restart.onProgress();

        assertEquals(Optional.empty(), restart.onFailure(1_000));
    }

    @Test
    void noneGivesUpAtTheFirstFailure() {
        Settings none = new Settings(Kind.NONE, Duration.ZERO, Duration.ZERO, Duration.ZERO, 1, 0, 0, 0, Duration.ZERO);

        assertEquals(Optional.empty(), new RestartStrategy(none, () -> 0.5).onFailure(0));
    }

    @Test
    void settingsRejectJitterOutsideZeroToOneAndMultipliersBelowOne() {
        assertThrows(IllegalArgumentException.class, () -> exponential(1, 2, 2, -0.1, 0));
        assertThrows(IllegalArgumentException.class, () -> exponential(1, 2, 2, 1.1, 0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> exponential(1, 2, 0.5, 0, 0));
        assertTrue(e.getMessage().contains("0.5"), e.getMessage());
    }
}
