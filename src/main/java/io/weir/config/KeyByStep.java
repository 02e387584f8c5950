package io.weir.config;

import io.weir.expr.Expression;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * Gives each record a new key, the result of a CEL expression, and ends the stage: the runtime
 * writes the records to a repartition topic (with {@code partitions} partitions, or as many as the
 * input has) and the next stage reads them grouped by the new key.
 */
public record KeyByStep(Expression by, OptionalInt partitions) implements OperatorStep {

    public KeyByStep {
        Objects.requireNonNull(by, "by");
        Objects.requireNonNull(partitions, "partitions");
        if (partitions.isPresent() && partitions.getAsInt() < 1) {
            throw new IllegalArgumentException("partitions must be at least 1, was " + partitions.getAsInt());
        }
    }

    /** The repartition topic the {@code n}th key-by (from 1) of {@code application} writes. */
    public static String topic(String application, int n) {
        return application + "-repartition-" + n;
    }

    @Override
    public String type() {
        return "key-by";
    }
}
