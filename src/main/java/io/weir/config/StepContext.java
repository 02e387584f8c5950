package io.weir.config;

import io.weir.expr.ExpressionTypes;
import java.util.Objects;
import java.util.Optional;

/**
 * What binding one step knows of the steps before it: the types its expressions may assume for
 * {@code value} and {@code key} (typed while a string or bytes value or key comes unchanged from
 * the source), the source (absent when it did not bind) and the dead-letter topic the application
 * gets by default (absent when one is configured, which the top level checks itself).
 */
record StepContext(
        ErrorList errors, ExpressionTypes types, Optional<SourceStep> source, Optional<String> defaultDeadLetter) {

    StepContext {
        Objects.requireNonNull(errors, "errors");
        Objects.requireNonNull(types, "types");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(defaultDeadLetter, "defaultDeadLetter");
    }

    /** The declared type of a value or key read in {@code format}. */
    static ExpressionTypes.Kind kind(Format format) {
        return switch (format) {
            case JSON -> ExpressionTypes.Kind.DYN;
            case STRING -> ExpressionTypes.Kind.STRING;
            case BYTES -> ExpressionTypes.Kind.BYTES;
        };
    }

    StepContext withTypes(ExpressionTypes next) {
        return new StepContext(errors, next, source, defaultDeadLetter);
    }

    /** Whether the value is still the source's string or bytes, so it has no fields. */
    boolean valueIsText() {
        return types.value() != ExpressionTypes.Kind.DYN;
    }

    /** How messages name the source's value format, such as "string". */
    String sourceFormat() {
        return source.map(s -> ConfigShape.nameOf(s.format())).orElse("json");
    }
}
