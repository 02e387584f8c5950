package io.weir.expr;

/**
 * An expression that failed for one record: a missing map key, division by zero, an overflow, no
 * function matching the values' types, a result outside the value model, or a filter giving
 * something other than a bool. The message says what went wrong in CEL's words without its
 * position prefix; the runtime sends the record to the dead-letter topic with it.
 */
public final class EvaluationError extends Exception {

    private static final long serialVersionUID = 1L;

    EvaluationError(String message) {
        super(message, null, false, false);
    }
}
