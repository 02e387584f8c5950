package io.weir.config;

import java.time.Duration;
import java.util.Objects;

/**
 * What happens when the job fails. {@code fixed-delay} restarts after {@code delay}, at most
 * {@code attempts} times; {@code exponential-backoff} waits {@code initialBackoff}, multiplied by
 * {@code multiplier} after each failure up to {@code maxBackoff}, each wait varied randomly by up
 * to {@code jitter} (a fraction), for {@code attempts} restarts; {@code failure-rate} restarts
 * after {@code delay} and gives up when {@code maxFailures} happen within {@code failureWindow};
 * {@code none} never restarts. {@code attempts} 0 means unlimited: the default for
 * exponential-backoff, while fixed-delay defaults to {@link #DEFAULT_FIXED_DELAY_ATTEMPTS}.
 */
public record RestartConfig(
        Strategy strategy,
        Duration initialBackoff,
        Duration maxBackoff,
        double multiplier,
        double jitter,
        int attempts,
        Duration delay,
        int maxFailures,
        Duration failureWindow) {

    /** The restart strategies. */
    public enum Strategy {
        FIXED_DELAY,
        EXPONENTIAL_BACKOFF,
        FAILURE_RATE,
        NONE
    }

    public static final int UNLIMITED = 0;
    public static final int DEFAULT_FIXED_DELAY_ATTEMPTS = 10;

    public RestartConfig {
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        Objects.requireNonNull(delay, "delay");
        Objects.requireNonNull(failureWindow, "failureWindow");
        if (initialBackoff.isNegative() || initialBackoff.isZero()) {
            throw new IllegalArgumentException(
                    "restart initial-backoff must be positive, was " + DurationFormat.format(initialBackoff));
        }
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("restart max-backoff must be at least initial-backoff ("
                    + DurationFormat.format(initialBackoff) + "), was " + DurationFormat.format(maxBackoff));
        }
        if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("restart multiplier must be at least 1.0, was " + multiplier);
        }
        if (!(jitter >= 0.0 && jitter <= 1.0)) {
            throw new IllegalArgumentException("restart jitter must be between 0 and 1, was " + jitter);
        }
        if (attempts < 0) {
            throw new IllegalArgumentException(
                    "restart attempts must be at least 0 (0 means unlimited), was " + attempts);
        }
        if (delay.isNegative()) {
            throw new IllegalArgumentException(
                    "restart delay must not be negative, was " + DurationFormat.format(delay));
        }
        if (maxFailures < 1) {
            throw new IllegalArgumentException("restart max-failures must be at least 1, was " + maxFailures);
        }
        if (failureWindow.isNegative() || failureWindow.isZero()) {
            throw new IllegalArgumentException(
                    "restart failure-window must be positive, was " + DurationFormat.format(failureWindow));
        }
    }

    /** Whether {@code attempts} sets no limit. */
    public boolean unlimitedAttempts() {
        return attempts == UNLIMITED;
    }

    /** The number of attempts a strategy gets when the file does not say. */
    public static int defaultAttempts(Strategy strategy) {
        return strategy == Strategy.FIXED_DELAY ? DEFAULT_FIXED_DELAY_ATTEMPTS : UNLIMITED;
    }

    public static RestartConfig defaults() {
        return new RestartConfig(
                Strategy.EXPONENTIAL_BACKOFF,
                Duration.ofSeconds(1),
                Duration.ofMinutes(1),
                2.0,
                0.2,
                UNLIMITED,
                Duration.ofSeconds(5),
                5,
                Duration.ofMinutes(5));
    }
}
