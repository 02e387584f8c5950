package io.weir.config;

import java.time.Duration;
import java.util.Objects;

/**
 * When checkpoints are taken: every {@code interval}, abandoned after {@code timeout}, at most
 * {@code maxConcurrent} in flight, and at least {@code minPause} between the end of one and the
 * start of the next.
 */
public record CheckpointConfig(Duration interval, Duration timeout, int maxConcurrent, Duration minPause) {

    public CheckpointConfig {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(minPause, "minPause");
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException(
                    "checkpoint interval must be positive, was " + DurationFormat.format(interval));
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException(
                    "checkpoint timeout must be positive, was " + DurationFormat.format(timeout));
        }
        if (maxConcurrent < 1) {
            throw new IllegalArgumentException("checkpoint max-concurrent must be at least 1, was " + maxConcurrent);
        }
        if (minPause.isNegative()) {
            throw new IllegalArgumentException(
                    "checkpoint min-pause must not be negative, was " + DurationFormat.format(minPause));
        }
    }

    public static CheckpointConfig defaults() {
        return new CheckpointConfig(Duration.ofSeconds(1), Duration.ofSeconds(30), 2, Duration.ZERO);
    }
}
