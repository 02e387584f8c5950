package io.weir.dataflow;

/**
 * A record this job cannot process (undecodable value, missing field, expression error). The task
 * sends the original record to the dead-letter topic with this message, the step and the expression
 * (when known) in headers, and goes on.
 */
public class BadRecordException extends RuntimeException {
    private final String step;
    private final String expression;

    public BadRecordException(String message) {
        this(message, null, null, null);
    }

    public BadRecordException(String message, Throwable cause) {
        this(message, null, null, cause);
    }

    /**
     * @param step the step that refused the record, as the configuration names it ({@code pipeline.2.filter})
     * @param expression the expression that failed, or null
     */
    public BadRecordException(String message, String step, String expression, Throwable cause) {
        super(message, cause);
        this.step = step;
        this.expression = expression;
    }

    /** The step that refused the record, or null when not known. */
    public String step() {
        return step;
    }

    /** The expression that failed, or null. */
    public String expression() {
        return expression;
    }

    /** This failure attributed to {@code step} unless it already names one. */
    public BadRecordException at(String stepName) {
        return step != null ? this : new BadRecordException(getMessage(), stepName, expression, getCause());
    }
}
