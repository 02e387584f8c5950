package io.weir.operators;

import io.weir.dataflow.Event;
import io.weir.dataflow.OperatorContext;

/**
 * Something a step computes from a record: an expression of the configuration, compiled once. It
 * throws {@link io.weir.dataflow.BadRecordException} (naming the expression) when it cannot be
 * computed for this record, which sends the record to the dead-letter topic.
 */
@FunctionalInterface
public interface RecordFunction {
    /** The result for {@code event}, read in {@code context} (its topic, partition and offset). */
    Object apply(Event event, OperatorContext context);
}
