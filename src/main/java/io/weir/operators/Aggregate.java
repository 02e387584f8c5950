package io.weir.operators;

import dev.cel.common.values.NullValue;
import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Collector;
import io.weir.dataflow.Event;
import io.weir.dataflow.Operator;
import io.weir.dataflow.OperatorContext;
import io.weir.state.ValueState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * A running aggregate per key: count, and sum / min / max / avg / first / last of fields, emitted
 * as a JSON object after every update: the key under {@code keyAs}, then the aggregates in the order
 * count, sum, min, max, avg, first, last.
 *
 * <p>The state of a key is an {@link Accumulators} row in a {@link ValueState}, so it is snapshotted
 * with the task. A record is checked completely before the state changes, so a bad record (no key,
 * a missing or non-numeric field, a sum that would overflow) goes to the dead-letter topic and
 * leaves no trace. Integer sums stay exact: a sum beyond 64 bits is refused, never turned into a
 * floating-point number; a sum becomes floating point only when an input has a fraction.
 */
public final class Aggregate implements Operator {

    /** What to compute; each map goes from input field to output field, in output order. */
    public record Spec(
            String keyAs,
            String count,
            Map<String, String> sum,
            Map<String, String> min,
            Map<String, String> max,
            Map<String, String> avg,
            Map<String, String> first,
            Map<String, String> last) {
        public Spec {
            sum = new LinkedHashMap<>(sum);
            min = new LinkedHashMap<>(min);
            max = new LinkedHashMap<>(max);
            avg = new LinkedHashMap<>(avg);
            first = new LinkedHashMap<>(first);
            last = new LinkedHashMap<>(last);
        }

        /** Whether the aggregate reads fields of the values, which must then be objects. */
        boolean readsFields() {
            return !(sum.isEmpty()
                    && min.isEmpty()
                    && max.isEmpty()
                    && avg.isEmpty()
                    && first.isEmpty()
                    && last.isEmpty());
        }
    }

    private final Spec spec;
    private final String[] sumIn;
    private final String[] sumOut;
    private final String[] minIn;
    private final String[] minOut;
    private final String[] maxIn;
    private final String[] maxOut;
    private final String[] avgIn;
    private final String[] avgOut;
    private final String[] firstIn;
    private final String[] firstOut;
    private final String[] lastIn;
    private final String[] lastOut;
    private ValueState<Object[]> state;
    /** The output's field names, each once, in output order; shared by every output. */
    private final String[] outNames;
    /**
     * For each value {@link #output} puts, in the order it puts them (key, count, sums, mins, maxes,
     * avgs, firsts, lasts), its position in {@link #outNames}: a name given twice keeps its first
     * place and the later value, as a map that is put into twice does.
     */
    private final int[] outSlots;

    public Aggregate(Spec spec) {
        this.spec = spec;
        sumIn = spec.sum().keySet().toArray(String[]::new);
        sumOut = spec.sum().values().toArray(String[]::new);
        minIn = spec.min().keySet().toArray(String[]::new);
        minOut = spec.min().values().toArray(String[]::new);
        maxIn = spec.max().keySet().toArray(String[]::new);
        maxOut = spec.max().values().toArray(String[]::new);
        avgIn = spec.avg().keySet().toArray(String[]::new);
        avgOut = spec.avg().values().toArray(String[]::new);
        firstIn = spec.first().keySet().toArray(String[]::new);
        firstOut = spec.first().values().toArray(String[]::new);
        lastIn = spec.last().keySet().toArray(String[]::new);
        lastOut = spec.last().values().toArray(String[]::new);
        List<String> order = new ArrayList<>();
        order.add(spec.keyAs());
        if (spec.count() != null) {
            order.add(spec.count());
        }
        for (String[] names : List.of(sumOut, minOut, maxOut, avgOut, firstOut, lastOut)) {
            order.addAll(List.of(names));
        }
        List<String> distinct = new ArrayList<>(new LinkedHashSet<>(order));
        outNames = distinct.toArray(String[]::new);
        outSlots = order.stream().mapToInt(distinct::indexOf).toArray();
    }

    /**
     * The row of a key: [count, sums…, mins…, maxes…, (avg sum, avg count)…, firsts…, lasts…], each
     * a value of the {@link Json} model (null until the first record).
     */
    int rowLength() {
        return 1 + sumIn.length + minIn.length + maxIn.length + 2 * avgIn.length + firstIn.length + lastIn.length;
    }

    @Override
    public void open(OperatorContext context) {
        state = context.state().valueState("aggregate", new Accumulators(rowLength()));
    }

    @Override
    public void process(Event event, Collector out) {
        Object key = key(event);
        Object[] next = update(state.value(), event);
        state.update(next);
        out.emit(event.withValue(output(key, next)));
    }

    /** The record's key; a record without one is refused. */
    static Object key(Event event) {
        if (keyless(event)) {
            throw new BadRecordException("aggregate by key needs a record key, and this record has none");
        }
        return event.key().value();
    }

    /**
     * Whether {@code event} has no key: none was read, or a {@code key-by} gave null (which crosses
     * the repartition topic as JSON null).
     */
    static boolean keyless(Event event) {
        Object key = event.key().value();
        return key == null || key instanceof NullValue;
    }

    /**
     * The row {@code stored} (null: none yet) updated with {@code event}, as a new array; throws
     * {@link BadRecordException} before anything changed when the record cannot be aggregated.
     */
    Object[] update(Object[] stored, Event event) {
        Map<?, ?> in = null;
        if (spec.readsFields()) {
            if (!(event.value() instanceof Map<?, ?> map)) {
                throw new BadRecordException("aggregate expects a JSON object, got " + Json.describe(event.value()));
            }
            in = map;
        }
        Object[] row = stored != null ? stored : new Object[rowLength()];
        // Compute every new cell before writing any, so that a refused record changes nothing.
        Object[] next = row.clone();
        int i = 0;
        next[i] = row[i] == null ? 1L : (Long) row[i] + 1;
        i++;
        for (int f = 0; f < sumIn.length; f++, i++) {
            next[i] = Numbers.add(row[i], number(in, sumIn[f]), sumIn[f]);
        }
        for (int f = 0; f < minIn.length; f++, i++) {
            Object v = number(in, minIn[f]);
            next[i] = row[i] == null || Numbers.compare(v, row[i]) < 0 ? v : row[i];
        }
        for (int f = 0; f < maxIn.length; f++, i++) {
            Object v = number(in, maxIn[f]);
            next[i] = row[i] == null || Numbers.compare(v, row[i]) > 0 ? v : row[i];
        }
        for (int f = 0; f < avgIn.length; f++, i += 2) {
            Object v = number(in, avgIn[f]);
            Object sum = Numbers.addOrWiden(row[i], v);
            next[i] = sum;
            next[i + 1] = row[i + 1] == null ? 1L : (Long) row[i + 1] + 1;
        }
        for (int f = 0; f < firstIn.length; f++, i++) {
            Object v = field(in, firstIn[f]);
            next[i] = row[i] == null ? v : row[i];
        }
        for (int f = 0; f < lastIn.length; f++, i++) {
            next[i] = field(in, lastIn[f]);
        }
        return next;
    }

    /**
     * Two rows combined, as when session windows merge: {@code earlier}'s first values and
     * {@code later}'s last ones. Throws {@link BadRecordException} when a sum would overflow.
     */
    Object[] merge(Object[] earlier, Object[] later) {
        Object[] next = new Object[rowLength()];
        int i = 0;
        next[i] = (Long) earlier[i] + (Long) later[i];
        i++;
        for (int f = 0; f < sumIn.length; f++, i++) {
            next[i] = Numbers.add(earlier[i], later[i], sumIn[f]);
        }
        for (int f = 0; f < minIn.length; f++, i++) {
            next[i] = Numbers.compare(later[i], earlier[i]) < 0 ? later[i] : earlier[i];
        }
        for (int f = 0; f < maxIn.length; f++, i++) {
            next[i] = Numbers.compare(later[i], earlier[i]) > 0 ? later[i] : earlier[i];
        }
        for (int f = 0; f < avgIn.length; f++, i += 2) {
            next[i] = Numbers.addOrWiden(earlier[i], later[i]);
            next[i + 1] = (Long) earlier[i + 1] + (Long) later[i + 1];
        }
        for (int f = 0; f < firstIn.length; f++, i++) {
            next[i] = earlier[i];
        }
        for (int f = 0; f < lastIn.length; f++, i++) {
            next[i] = later[i];
        }
        return next;
    }

    /** The output document of a row: the key under key-as, then the aggregates asked for. */
    Map<String, Object> output(Object key, Object[] row) {
        Object[] values = new Object[outNames.length];
        int slot = 0;
        values[outSlots[slot++]] = key instanceof byte[] b ? Codecs.STRING.decodeKey(b) : key;
        int i = 0;
        if (spec.count() != null) {
            values[outSlots[slot++]] = row[0];
        }
        i++;
        for (int n = sumOut.length + minOut.length + maxOut.length; n > 0; n--) {
            values[outSlots[slot++]] = row[i++];
        }
        for (int n = avgOut.length; n > 0; n--) {
            values[outSlots[slot++]] = Numbers.toDouble(row[i]) / (Long) row[i + 1];
            i += 2;
        }
        for (int n = firstOut.length + lastOut.length; n > 0; n--) {
            values[outSlots[slot++]] = row[i++];
        }
        return new Fields(outNames, values);
    }

    private static Object field(Map<?, ?> in, String name) {
        Object v = in.get(name);
        if (v == null) {
            throw new BadRecordException("field '" + name + "' is missing");
        }
        return v;
    }

    private static Object number(Map<?, ?> in, String name) {
        Object v = in.get(name);
        if (v == null || v instanceof NullValue) {
            throw new BadRecordException("field '" + name + "' is missing");
        }
        if (!(v instanceof Long || v instanceof Double)) {
            throw new BadRecordException("field '" + name + "' must be a number, was " + Json.describe(v));
        }
        return v;
    }
}
