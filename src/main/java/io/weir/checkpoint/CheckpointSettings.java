package io.weir.checkpoint;

import java.time.Duration;

/** How often checkpoints are taken and how long one may take. */
public record CheckpointSettings(Duration interval, Duration timeout, int maxConcurrent, Duration minPause) {
    public CheckpointSettings {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("checkpoint interval must be positive, was " + interval);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("checkpoint timeout must be positive, was " + timeout);
        }
        if (maxConcurrent < 1) {
            throw new IllegalArgumentException("checkpoint max-concurrent must be at least 1, was " + maxConcurrent);
        }
        if (minPause.isNegative()) {
            throw new IllegalArgumentException("checkpoint min-pause must not be negative, was " + minPause);
        }
    }
}
