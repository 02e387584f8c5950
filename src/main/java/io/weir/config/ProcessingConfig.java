package io.weir.config;

import java.time.Duration;
import java.util.Objects;

/**
 * How the job processes records: the delivery guarantee, the number of worker threads, how many
 * records are buffered per input partition, where tasks without a checkpoint start reading, the
 * producers' transaction timeout, and the checkpoint, restart and state settings.
 */
public record ProcessingConfig(
        Guarantee guarantee,
        int threads,
        int channelCapacity,
        OffsetReset autoOffsetReset,
        Duration transactionTimeout,
        CheckpointConfig checkpoint,
        RestartConfig restart,
        StateConfig state) {

    /** Whether results are exactly-once (transactions) or at-least-once. */
    public enum Guarantee {
        EXACTLY_ONCE,
        AT_LEAST_ONCE
    }

    /** Where a task with no checkpoint starts reading its input. */
    public enum OffsetReset {
        EARLIEST,
        LATEST
    }

    public ProcessingConfig {
        Objects.requireNonNull(guarantee, "guarantee");
        Objects.requireNonNull(autoOffsetReset, "autoOffsetReset");
        Objects.requireNonNull(transactionTimeout, "transactionTimeout");
        Objects.requireNonNull(checkpoint, "checkpoint");
        Objects.requireNonNull(restart, "restart");
        Objects.requireNonNull(state, "state");
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, was " + threads);
        }
        if (channelCapacity < 1) {
            throw new IllegalArgumentException("channel-capacity must be at least 1, was " + channelCapacity);
        }
        if (transactionTimeout.isNegative() || transactionTimeout.isZero()) {
            throw new IllegalArgumentException(
                    "transaction-timeout must be positive, was " + DurationFormat.format(transactionTimeout));
        }
    }

    /** The defaults used for everything a file leaves out. */
    public static ProcessingConfig defaults() {
        return new ProcessingConfig(
                Guarantee.EXACTLY_ONCE,
                2,
                1024,
                OffsetReset.EARLIEST,
                Duration.ofSeconds(60),
                CheckpointConfig.defaults(),
                RestartConfig.defaults(),
                StateConfig.defaults());
    }
}
