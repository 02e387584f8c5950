package com.example;

import io.weir.api.ListState;
import io.weir.api.Output;
import io.weir.api.Processor;
import io.weir.api.ProcessorContext;
import io.weir.api.Record;
import io.weir.api.TimerEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Flags suspicious orders, per customer (the record key): an order whose {@code amount} is above
 * {@code threshold}, or the order that makes more than {@code max-orders} orders within
 * {@code window} (by the records' timestamps). Every order is emitted again with two added fields:
 * {@code flagged} (true or false) and {@code reasons} (a list of texts, empty when not flagged).
 *
 * <pre>{@code
 * - process: { class: com.example.FraudFlag, with: { threshold: 1000, max-orders: 3, window: 1m } }
 * }</pre>
 *
 * <p>State per customer: the timestamps of its orders within the window (a list state). An
 * event-time timer at the end of each order's window drops the timestamps that left it, so a customer
 * who stops ordering leaves no state behind. An order without a numeric {@code amount} is refused
 * (it goes to the dead-letter topic) before the state changes.
 */
public class FraudFlag implements Processor {
    private double threshold;
    private long maxOrders;
    private long windowMillis;
    private ListState<Long> recent;
    private ProcessorContext context;

    @Override
    public void open(ProcessorContext context) {
        this.context = context;
        threshold = context.settings().getDouble("threshold", 1000);
        maxOrders = context.settings().getLong("max-orders", 3);
        windowMillis =
                context.settings().duration("window", Duration.ofMinutes(1)).toMillis();
        if (maxOrders < 1 || windowMillis < 1) {
            throw new IllegalArgumentException("max-orders and window must be positive, were " + maxOrders + " and "
                    + context.settings().string("window", "1m"));
        }
        recent = context.listState("recent-orders", Long.class);
    }

    @Override
    public void process(Record record, Output out) {
        Map<String, Object> order = record.valueAsMap();
        if (!(order.get("amount") instanceof Number amount)) {
            throw new IllegalArgumentException(
                    "an order needs a numeric 'amount', was " + order.get("amount") + " in " + order);
        }
        List<String> reasons = new ArrayList<>();
        if (amount.doubleValue() > threshold) {
            reasons.add("amount " + amount + " is above " + format(threshold));
        }
        long now = record.timestamp();
        List<Long> inWindow = new ArrayList<>();
        for (Long t : recent.get()) {
            if (t > now - windowMillis) {
                inWindow.add(t);
            }
        }
        inWindow.add(now);
        if (inWindow.size() > maxOrders) {
            reasons.add(inWindow.size() + " orders within " + windowMillis + " ms, more than " + maxOrders);
        }
        recent.update(inWindow);
        context.timers().registerEventTime(now + windowMillis);

        Map<String, Object> flagged = new LinkedHashMap<>(order);
        flagged.put("flagged", !reasons.isEmpty());
        flagged.put("reasons", reasons);
        out.emit(flagged);
    }

    /** The window of an order ended: forget the orders that left it. */
    @Override
    public void onTimer(TimerEvent timer, Output out) {
        List<Long> left = new ArrayList<>();
        for (Long t : recent.get()) {
            if (t > timer.timestamp() - windowMillis) {
                left.add(t);
            }
        }
        if (left.isEmpty()) {
            recent.clear();
        } else {
            recent.update(left);
        }
    }

    private static String format(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
