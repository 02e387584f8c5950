package io.weir.operators;

import io.weir.dataflow.Collector;
import io.weir.dataflow.Event;
import io.weir.dataflow.Operator;
import io.weir.dataflow.OperatorContext;
import io.weir.state.MapState;
import io.weir.state.Serde;
import io.weir.state.Timer;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * The {@code dedupe} step: drops a record whose id was already seen, for the same key, at most
 * {@code within} earlier or later in record time (as a join's {@code within}: at most that far
 * apart); a dropped duplicate extends nothing. Ids are kept per key in a map state: id → the times
 * records of it passed (big-endian longs in ascending order; one long as the earliest versions
 * wrote it), which are more than {@code within} apart, so only a record out of order makes it more
 * than one. Each time expires through an event-time timer at that time + within + 1 ms: once the
 * task's event time (the highest record timestamp of each input, the lowest over its inputs) passes
 * time + within, it is forgotten, so state stays bounded by the ids of one {@code within}.
 */
public final class Dedupe implements Operator {
    private final RecordFunction id;
    private final long withinMs;
    private OperatorContext context;
    private MapState<byte[], byte[]> seen;

    public Dedupe(RecordFunction id, long withinMs) {
        this.id = id;
        this.withinMs = withinMs;
    }

    @Override
    public void open(OperatorContext context) {
        this.context = context;
        this.seen = context.state().mapState("dedupe", Serde.BYTES, Serde.BYTES);
    }

    @Override
    public void process(Event event, Collector out) {
        byte[] key = Codecs.JSON.encode(id.apply(event, context));
        byte[] times = seen.get(key);
        long ts = event.timestamp();
        int at = 0;
        if (times != null) {
            ByteBuffer b = ByteBuffer.wrap(times);
            for (int i = 0; i < times.length / 8; i++) {
                long t = b.getLong(i * 8);
                if (Math.abs(ts - t) <= withinMs) {
                    return;
                }
                if (t < ts) {
                    at = i + 1;
                }
            }
        }
        int n = times == null ? 0 : times.length / 8;
        ByteBuffer next = ByteBuffer.allocate((n + 1) * 8);
        if (times != null) {
            next.put(times, 0, at * 8);
        }
        next.putLong(ts);
        if (times != null) {
            next.put(times, at * 8, (n - at) * 8);
        }
        seen.put(key, next.array());
        context.timers().registerEventTime(expiry(ts));
        out.emit(event);
    }

    /** When a time passed at {@code ts} is forgotten: once event time passes {@code ts + within}. */
    private long expiry(long ts) {
        return ts >= Long.MAX_VALUE - withinMs ? Long.MAX_VALUE : ts + withinMs + 1;
    }

    @Override
    public void onTimer(Timer timer, Collector out) {
        for (Map.Entry<byte[], byte[]> e : seen.entries()) {
            byte[] times = e.getValue();
            ByteBuffer kept = ByteBuffer.allocate(times.length);
            ByteBuffer b = ByteBuffer.wrap(times);
            for (int i = 0; i < times.length / 8; i++) {
                long t = b.getLong(i * 8);
                if (expiry(t) > timer.timestamp()) {
                    kept.putLong(t);
                    if (t <= Long.MAX_VALUE - withinMs && t + withinMs == timer.timestamp()) {
                        // The earlier version's timer for it (at time + within): the one at expiry instead.
                        context.timers().registerEventTime(expiry(t));
                    }
                }
            }
            if (kept.position() == 0) {
                seen.remove(e.getKey());
            } else if (kept.position() < times.length) {
                seen.put(e.getKey(), java.util.Arrays.copyOf(kept.array(), kept.position()));
            }
        }
    }
}
