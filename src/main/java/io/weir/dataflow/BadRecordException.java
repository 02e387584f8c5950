package io.weir.dataflow;

/**
 * A record this job cannot process (undecodable value, missing field, expression error). The task
 * sends the original record to the dead-letter topic with this message and goes on.
 */
public class BadRecordException extends RuntimeException {
    public BadRecordException(String message) {
        super(message);
    }

    public BadRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
