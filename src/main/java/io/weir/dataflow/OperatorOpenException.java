package io.weir.dataflow;

/**
 * An operator could not open (a custom operator refused its settings, say): no restart can fix
 * that, so the job stops with this message instead of failing over again and again.
 */
public final class OperatorOpenException extends RuntimeException {
    public OperatorOpenException(String message, Throwable cause) {
        super(message, cause);
    }
}
