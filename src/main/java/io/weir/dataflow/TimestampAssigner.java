package io.weir.dataflow;

/**
 * Gives a record its event time when the source configures {@code timestamp:}: epoch milliseconds
 * computed from the decoded record. Throws {@link BadRecordException} when it cannot, which sends
 * the record to the dead-letter topic like any other expression error.
 */
@FunctionalInterface
public interface TimestampAssigner {
    long timestamp(Event event, OperatorContext context);
}
