package io.weir.dataflow;

import io.weir.state.KeyedState;
import io.weir.state.Timers;

/** What an operator may use: its task's keyed state, its own timers, the task's name and clock. */
public interface OperatorContext {
    KeyedState state();

    /** Timers owned by this operator: only this operator's {@link Operator#onTimer} sees them fire. */
    Timers timers();

    String taskName();

    /** Processing time in milliseconds, from the injected clock. */
    long currentProcessingTime();
}
