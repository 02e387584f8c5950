package io.weir.dataflow;

import io.weir.element.Header;
import io.weir.element.InputPartition;
import io.weir.state.KeyedState;
import io.weir.state.Timers;
import java.util.List;

/**
 * What an operator may use: its task's keyed state, its own timers, the record being processed,
 * the task's clocks, and the epoch's output for the operators that end a chain (sinks, routes,
 * repartitions).
 */
public interface OperatorContext {
    KeyedState state();

    /** Timers owned by this operator: only this operator's {@link Operator#onTimer} sees them fire. */
    Timers timers();

    String taskName();

    /** Processing time in milliseconds, from the injected clock. */
    long currentProcessingTime();

    /** The task's event time: no timestamp at or below it is expected any more (Long.MIN_VALUE at first). */
    long currentWatermark();

    /** The input partition of the record being processed; null while a timer fires. */
    InputPartition currentInput();

    /** The offset of the record being processed in {@link #currentInput()}; -1 while a timer fires. */
    long currentOffset();

    /** The key of the record being processed or of the timer firing. */
    RecordKey currentKey();

    /**
     * Writes a record to {@code topic} in the current epoch (exactly-once: its transaction). Throws
     * {@link BadRecordException} when the record is larger than the topic accepts, so the input goes
     * to the dead-letter topic instead of failing the epoch.
     */
    void send(String topic, byte[] key, byte[] value, long timestamp, List<Header> headers);
}
