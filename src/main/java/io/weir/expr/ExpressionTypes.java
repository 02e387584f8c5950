package io.weir.expr;

import java.util.Objects;

/**
 * What an expression may assume about the record's {@code value} and {@code key} when it is
 * compiled: {@link Kind#DYN} (decoded JSON, checked only at evaluation) unless the step reads a
 * {@code string} or {@code bytes} value unchanged from the source, which then has that static type
 * so that mistakes such as {@code value.amount} on text are compile errors.
 */
public record ExpressionTypes(Kind value, Kind key) {

    /** The CEL type a variable is declared with. */
    public enum Kind {
        DYN,
        STRING,
        BYTES
    }

    /** Both value and key dynamic. */
    public static final ExpressionTypes DYN = new ExpressionTypes(Kind.DYN, Kind.DYN);

    public ExpressionTypes {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(key, "key");
    }
}
