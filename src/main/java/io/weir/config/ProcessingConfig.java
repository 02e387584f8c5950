package io.weir.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How the job processes records: the delivery guarantee, the number of worker threads, how many
 * records are buffered per input partition, where tasks without a checkpoint start reading, the
 * producers' transaction timeout, the checkpoint, restart and state settings, and the directory
 * of plugin jars holding the classes of {@code process} steps.
 */
public record ProcessingConfig(
        Guarantee guarantee,
        int threads,
        int channelCapacity,
        OffsetReset autoOffsetReset,
        Duration transactionTimeout,
        CheckpointConfig checkpoint,
        RestartConfig restart,
        StateConfig state,
        Path plugins,
        int standby) {

    /** The directory of plugin jars unless configured, relative to the working directory. */
    public static final Path DEFAULT_PLUGINS = Path.of("plugins");

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
        Objects.requireNonNull(plugins, "plugins");
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, was " + threads);
        }
        if (channelCapacity < 1) {
            throw new IllegalArgumentException("channel-capacity must be at least 1, was " + channelCapacity);
        }
        if (standby < 0) {
            throw new IllegalArgumentException("standby must be at least 0, was " + standby);
        }
        if (transactionTimeout.isNegative() || transactionTimeout.isZero()) {
            throw new IllegalArgumentException(
                    "transaction-timeout must be positive, was " + DurationFormat.format(transactionTimeout));
        }
    }

    /** Settings with the default plugin directory and no standby copies. */
    public ProcessingConfig(
            Guarantee guarantee,
            int threads,
            int channelCapacity,
            OffsetReset autoOffsetReset,
            Duration transactionTimeout,
            CheckpointConfig checkpoint,
            RestartConfig restart,
            StateConfig state) {
        this(
                guarantee,
                threads,
                channelCapacity,
                autoOffsetReset,
                transactionTimeout,
                checkpoint,
                restart,
                state,
                DEFAULT_PLUGINS,
                0);
    }

    /** The defaults used for everything a file leaves out. */
    public static ProcessingConfig defaults() {
        return new ProcessingConfig(
                Guarantee.EXACTLY_ONCE,
                2,
                1024,
                OffsetReset.EARLIEST,
                Duration.ofSeconds(90),
                CheckpointConfig.defaults(),
                RestartConfig.defaults(),
                StateConfig.defaults(),
                DEFAULT_PLUGINS,
                0);
    }

    /**
     * The longest an epoch's transaction may stay open with these checkpoint settings:
     * {@link TransactionTimeoutRule#longestOpen}.
     */
    public Duration longestTransactionOpen() {
        return TransactionTimeoutRule.longestOpen(checkpoint.interval(), checkpoint.timeout());
    }
}
