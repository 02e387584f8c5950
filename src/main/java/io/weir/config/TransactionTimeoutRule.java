package io.weir.config;

import java.time.Duration;
import java.util.Optional;

/**
 * The one rule relating the producers' transaction timeout to the checkpoint settings, used by the
 * loader and by the runtime at start. An epoch's transaction opens when checkpoint n-1 is triggered
 * and commits when checkpoint n completes, so it stays open for up to two checkpoint timeouts plus
 * the interval between them; with exactly-once the transaction timeout must be longer than that,
 * or the broker aborts transactions whose checkpoint is still allowed to finish.
 */
public final class TransactionTimeoutRule {

    private TransactionTimeoutRule() {}

    /** How long an epoch's transaction may stay open: {@code 2 × timeout + interval}. */
    public static Duration longestOpen(Duration checkpointInterval, Duration checkpointTimeout) {
        return checkpointTimeout.multipliedBy(2).plus(checkpointInterval);
    }

    /**
     * What is wrong with {@code transactionTimeout} for these checkpoint settings, or empty when
     * it is longer than {@link #longestOpen}; the message names the settings as the file does.
     */
    public static Optional<String> violation(
            Duration transactionTimeout, Duration checkpointInterval, Duration checkpointTimeout) {
        Duration needed = longestOpen(checkpointInterval, checkpointTimeout);
        if (transactionTimeout.compareTo(needed) > 0) {
            return Optional.empty();
        }
        return Optional.of("processing.transaction-timeout must be longer than 2 × checkpoint.timeout + "
                + "checkpoint.interval (" + DurationFormat.format(needed) + "), how long an epoch's transaction "
                + "stays open at most, so that transactions are not aborted before their checkpoint ends, was "
                + DurationFormat.format(transactionTimeout));
    }
}
