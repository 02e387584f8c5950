package io.weir.operators;

import io.weir.dataflow.Collector;
import io.weir.dataflow.Event;
import io.weir.dataflow.LateRecordException;
import io.weir.dataflow.Operator;
import io.weir.dataflow.OperatorContext;
import io.weir.state.MapState;
import io.weir.state.Serde;
import io.weir.state.Timer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An aggregate per key and event-time window ({@link Windows}): the same aggregates as
 * {@link Aggregate}, one row per open window. The output holds the key under key-as, then
 * {@code windowStart} and {@code windowEnd} (epoch ms), then the aggregates.
 *
 * <p>A window closes once the task's watermark reaches its end plus {@code lateness} (a session one
 * millisecond later: a record at its end still joins it): an event-time timer at that time fires,
 * sends the window's final row ({@link Emit#ON_CLOSE}; its timestamp is the window's last
 * millisecond) and deletes the window from state, so state holds open windows only. {@link Emit#EVERY_UPDATE} sends the window's row after each record instead, and nothing at
 * the close. A record all of whose windows are closed is late: {@link LateRecordException} sends it
 * to the late topic or the dead-letter topic (a hopping record still counts in the windows that are
 * open). Restored state and the restored watermark agree, so a restart neither sends a closed
 * window again nor loses an open one.
 */
public final class WindowedAggregate implements Operator {
    /** When results are sent. */
    public enum Emit {
        ON_CLOSE,
        EVERY_UPDATE
    }

    /** The state name of the windows; exposed for tests that count state. */
    public static final String STATE = "windows";

    private final Aggregate aggregate;
    private final String keyAs;
    private final Windows windows;
    private final long latenessMs;
    private final Emit emit;
    private final String lateTopic;
    private OperatorContext context;
    private MapState<Long, Object[]> open;

    /**
     * @param lateTopic where late records go; null for the dead-letter topic
     */
    public WindowedAggregate(Aggregate.Spec spec, Windows windows, long latenessMs, Emit emit, String lateTopic) {
        this.aggregate = new Aggregate(spec);
        this.keyAs = spec.keyAs();
        this.windows = windows;
        this.latenessMs = latenessMs;
        this.emit = emit;
        this.lateTopic = lateTopic;
    }

    @Override
    public void open(OperatorContext context) {
        this.context = context;
        // Each window: start -> [end, the aggregate's row...].
        this.open = context.state().mapState(STATE, Serde.LONG, new Accumulators(aggregate.rowLength() + 1));
    }

    /**
     * When window {@code [.., end)} closes: the watermark at which its timer fires. A record at or
     * above the watermark is never late, and a session takes a record at its end too (sessions that
     * touch merge), so a session closes a millisecond after a fixed window with the same end would.
     */
    private long closesAt(long end) {
        long last = windows.kind() == Windows.Kind.SESSION ? Windows.saturatedAdd(end, 1) : end;
        return Windows.saturatedAdd(last, latenessMs);
    }

    private boolean closed(long end) {
        return closesAt(end) <= context.currentWatermark();
    }

    @Override
    public void process(Event event, Collector out) {
        Object key = Aggregate.key(event);
        if (windows.kind() == Windows.Kind.SESSION) {
            session(key, event, out);
            return;
        }
        long size = windows.size();
        List<long[]> bounds = new ArrayList<>();
        List<Object[]> rows = new ArrayList<>();
        for (long start : windows.starts(event.timestamp())) {
            long end = Windows.saturatedAdd(start, size);
            if (closed(end)) {
                continue;
            }
            Object[] cells = open.get(start);
            Object[] row = cells == null ? null : Arrays.copyOfRange(cells, 1, cells.length);
            // Every window's row is computed before any is written: a refused record changes nothing.
            rows.add(aggregate.update(row, event));
            bounds.add(new long[] {start, end});
        }
        if (rows.isEmpty()) {
            throw new LateRecordException(lateTopic);
        }
        for (int i = rows.size() - 1; i >= 0; i--) {
            long[] b = bounds.get(i);
            put(b[0], b[1], rows.get(i));
            if (emit == Emit.EVERY_UPDATE) {
                out.emit(event.withValue(output(key, b[0], b[1], rows.get(i))));
            }
        }
    }

    private void session(Object key, Event event, Collector out) {
        long[] own = windows.sessionOf(event.timestamp());
        long start = own[0];
        long end = own[1];
        List<Map.Entry<Long, Object[]>> joined = new ArrayList<>();
        for (Map.Entry<Long, Object[]> e : open.entries()) {
            if (windows.joins(e.getKey(), (Long) e.getValue()[0], event.timestamp())) {
                joined.add(e);
            }
        }
        if (joined.isEmpty() && closed(end)) {
            throw new LateRecordException(lateTopic);
        }
        joined.sort(Map.Entry.comparingByKey());
        Object[] row = null;
        for (Map.Entry<Long, Object[]> e : joined) {
            Object[] r = Arrays.copyOfRange(e.getValue(), 1, e.getValue().length);
            row = row == null ? r : aggregate.merge(row, r);
            start = Math.min(start, e.getKey());
            end = Math.max(end, (Long) e.getValue()[0]);
        }
        row = aggregate.update(row, event);
        for (Map.Entry<Long, Object[]> e : joined) {
            open.remove(e.getKey());
            context.timers().deleteEventTime(closesAt((Long) e.getValue()[0]));
        }
        put(start, end, row);
        if (emit == Emit.EVERY_UPDATE) {
            out.emit(event.withValue(output(key, start, end, row)));
        }
    }

    private void put(long start, long end, Object[] row) {
        Object[] cells = new Object[row.length + 1];
        cells[0] = end;
        System.arraycopy(row, 0, cells, 1, row.length);
        open.put(start, cells);
        context.timers().registerEventTime(closesAt(end));
    }

    @Override
    public void onTimer(Timer timer, Collector out) {
        Object key = context.currentKey().value();
        for (Map.Entry<Long, Object[]> e : open.entries()) {
            long end = (Long) e.getValue()[0];
            if (closesAt(end) > timer.timestamp()) {
                if (windows.kind() == Windows.Kind.SESSION
                        && timer.timestamp() == Windows.saturatedAdd(end, latenessMs)) {
                    // A session checkpointed by a version that closed sessions at their end has its
                    // timer there, a millisecond early: it gets the one it needs now.
                    context.timers().registerEventTime(closesAt(end));
                }
                continue;
            }
            open.remove(e.getKey());
            if (emit == Emit.ON_CLOSE) {
                Object[] row = Arrays.copyOfRange(e.getValue(), 1, e.getValue().length);
                Event result = new Event(context.currentKey(), output(key, e.getKey(), end, row), end - 1, List.of());
                out.emit(result);
            }
        }
    }

    private Map<String, Object> output(Object key, long start, long end, Object[] row) {
        Map<String, Object> fields = aggregate.output(key, row);
        Map<String, Object> doc = new LinkedHashMap<>();
        boolean first = true;
        for (Map.Entry<String, Object> f : fields.entrySet()) {
            doc.put(f.getKey(), f.getValue());
            if (first) {
                doc.put("windowStart", start);
                doc.put("windowEnd", end);
                first = false;
            }
        }
        return doc;
    }
}
