package io.weir.config;

import java.time.Duration;
import java.util.Objects;

/**
 * {@code join: { with: { topic, format }, within: <d>, type: inner | left, as: <field> }}: a
 * stream-stream join by key of the records flowing here with those of another topic whose event
 * times are at most {@code within} apart. The output is this stream's value with field {@code as}
 * set to the other record's value; a left join also sends a record that found no partner by the
 * time its window closed, with {@code as} null.
 */
public record JoinStep(SideInput with, Duration within, JoinType joinType, String as) implements OperatorStep {

    /** Which records a join or lookup sends. */
    public enum JoinType {
        /** Only records that found a partner. */
        INNER,
        /** Every record of the stream; the field is null when there was no partner. */
        LEFT
    }

    public JoinStep {
        Objects.requireNonNull(with, "with");
        Objects.requireNonNull(within, "within");
        Objects.requireNonNull(joinType, "joinType");
        Objects.requireNonNull(as, "as");
        if (within.isNegative()) {
            throw new IllegalArgumentException("within must not be negative, was " + DurationFormat.format(within));
        }
    }

    @Override
    public String type() {
        return "join";
    }
}
