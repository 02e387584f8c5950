package io.weir.operators;

import io.weir.dataflow.Collector;
import io.weir.dataflow.Event;
import io.weir.dataflow.Operator;
import io.weir.dataflow.OperatorContext;
import io.weir.state.MapState;
import io.weir.state.Serde;
import io.weir.state.Timer;
import java.util.Map;

/**
 * The {@code dedupe} step: drops a record whose id was already seen, for the same key, at most
 * {@code within} earlier or later in record time; the first record of an id opens its window and
 * later duplicates do not extend it (a record of the id more than {@code within} before it, out of
 * order, passes and leaves it remembered at the later time). Ids are kept per key in a map state
 * (id → the latest time a record of it passed) and expire through an event-time timer at that time
 * + within: once the task's event time (the highest record timestamp of each input, the lowest over
 * its inputs) passes it, the id is forgotten, so state stays bounded by the ids of one {@code
 * within}.
 */
public final class Dedupe implements Operator {
    private final RecordFunction id;
    private final long withinMs;
    private OperatorContext context;
    private MapState<byte[], Long> seen;

    public Dedupe(RecordFunction id, long withinMs) {
        this.id = id;
        this.withinMs = withinMs;
    }

    @Override
    public void open(OperatorContext context) {
        this.context = context;
        this.seen = context.state().mapState("dedupe", Serde.BYTES, Serde.LONG);
    }

    @Override
    public void process(Event event, Collector out) {
        byte[] key = Codecs.JSON.encode(id.apply(event, context));
        Long first = seen.get(key);
        long ts = event.timestamp();
        if (first != null && Math.abs(ts - first) < withinMs) {
            return;
        }
        if (first == null || ts > first) {
            seen.put(key, ts);
            context.timers().registerEventTime(expiry(ts));
        }
        // else: a record out of order by more than `within` is no duplicate, but the id stays
        // remembered at its later time, which records still to come are far more likely near.
        out.emit(event);
    }

    private long expiry(long ts) {
        return ts > Long.MAX_VALUE - withinMs ? Long.MAX_VALUE : ts + withinMs;
    }

    @Override
    public void onTimer(Timer timer, Collector out) {
        for (Map.Entry<byte[], Long> e : seen.entries()) {
            if (expiry(e.getValue()) <= timer.timestamp()) {
                seen.remove(e.getKey());
            }
        }
    }
}
