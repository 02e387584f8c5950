package io.weir.operators;

import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Collector;
import io.weir.dataflow.Event;
import io.weir.dataflow.Operator;
import io.weir.dataflow.OperatorContext;

/** Keeps the records for which a condition is true and drops the others. */
public final class Filter implements Operator {
    private final RecordFunction condition;
    private OperatorContext context;

    public Filter(RecordFunction condition) {
        this.condition = condition;
    }

    @Override
    public void open(OperatorContext context) {
        this.context = context;
    }

    @Override
    public void process(Event event, Collector out) {
        Object keep = condition.apply(event, context);
        if (!(keep instanceof Boolean b)) {
            throw new BadRecordException("a filter condition must give a bool, gave " + Json.describe(keep));
        }
        if (b) {
            out.emit(event);
        }
    }
}
