package io.weir.config;

import io.weir.expr.Expression;
import java.time.Duration;
import java.util.Objects;

/**
 * Drops a record when another with the same {@code by} result (per key) was seen at most
 * {@code within} before or after it in record time, so that repeats of a message within that time
 * pass once.
 */
public record DedupeStep(Expression by, Duration within) implements OperatorStep {

    public DedupeStep {
        Objects.requireNonNull(by, "by");
        Objects.requireNonNull(within, "within");
        if (within.isNegative() || within.isZero()) {
            throw new IllegalArgumentException("within must be positive, was " + DurationFormat.format(within));
        }
    }

    @Override
    public String type() {
        return "dedupe";
    }
}
