package io.weir.operators;

import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Collector;
import io.weir.dataflow.Event;
import io.weir.dataflow.Operator;
import io.weir.dataflow.OperatorContext;
import java.util.List;

/**
 * The {@code route} step: sends each record to the sink of the first case whose condition is true,
 * else to the default sink; without a default an unmatched record is dropped. It ends the pipeline.
 */
public final class Route implements Operator {
    /** One case: a condition and where the records it matches go. */
    public record Case(RecordFunction when, Sink sink) {}

    private final List<Case> cases;
    private final Sink otherwise;
    private OperatorContext context;

    /** @param otherwise the default sink, or null to drop unmatched records */
    public Route(List<Case> cases, Sink otherwise) {
        this.cases = List.copyOf(cases);
        this.otherwise = otherwise;
    }

    @Override
    public void open(OperatorContext context) {
        this.context = context;
        cases.forEach(c -> c.sink().open(context));
        if (otherwise != null) {
            otherwise.open(context);
        }
    }

    @Override
    public void process(Event event, Collector out) {
        for (Case c : cases) {
            Object match = c.when().apply(event, context);
            if (!(match instanceof Boolean b)) {
                throw new BadRecordException("a route condition must give a bool, gave " + Json.describe(match));
            }
            if (b) {
                c.sink().process(event, out);
                return;
            }
        }
        if (otherwise != null) {
            otherwise.process(event, out);
        }
    }
}
