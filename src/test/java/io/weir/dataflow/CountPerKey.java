package io.weir.dataflow;

import io.weir.state.Serde;
import io.weir.state.ValueState;

/**
 * Counts records per key in keyed state and emits {@code <key>:<count>} after each one, so every
 * output names exactly which record of its key it was.
 */
final class CountPerKey implements Operator {
    static final String STATE = "count";

    private ValueState<Long> count;

    @Override
    public void open(OperatorContext context) {
        count = context.state().valueState(STATE, Serde.LONG);
    }

    @Override
    public void process(Event event, Collector out) {
        Long before = count.value();
        long now = before == null ? 1 : before + 1;
        count.update(now);
        out.emit(event.withValue(event.key().value() + ":" + now));
    }
}
