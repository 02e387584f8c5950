package io.weir.operators;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Collector;
import io.weir.dataflow.Event;
import io.weir.dataflow.Operator;
import io.weir.dataflow.OperatorContext;
import io.weir.state.ValueState;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A running aggregate per key: count, and sum / min / max / avg / last of fields, emitted as a JSON
 * document after every update (the running-totals job of DESIGN.md §5).
 *
 * <p>The state of a key is the document it emits, plus the sums and counts behind averages under a
 * hidden field; it lives in a {@link ValueState} so it is snapshotted with the task. A record is
 * checked completely before the state changes, so a bad record (missing or non-numeric field)
 * goes to the dead-letter topic and leaves no trace. Sums stay exact integers while every input is
 * integral and switch to floating point at the first fraction.
 */
public final class Aggregate implements Operator {
    private static final String AVERAGES = "_avg";
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** What to compute; each map goes from input field to output field, in output order. */
    public record Spec(
            String keyAs,
            String count,
            Map<String, String> sum,
            Map<String, String> min,
            Map<String, String> max,
            Map<String, String> avg,
            Map<String, String> last) {
        public Spec {
            sum = new LinkedHashMap<>(sum);
            min = new LinkedHashMap<>(min);
            max = new LinkedHashMap<>(max);
            avg = new LinkedHashMap<>(avg);
            last = new LinkedHashMap<>(last);
        }
    }

    private final Spec spec;
    private ValueState<ObjectNode> state;

    public Aggregate(Spec spec) {
        this.spec = spec;
    }

    @Override
    public void open(OperatorContext context) {
        state = context.state().valueState("aggregate", new CompactJson());
    }

    @Override
    public void process(Event event, Collector out) {
        if (!(event.value() instanceof ObjectNode in)) {
            throw new BadRecordException("aggregate expects a JSON object, got " + describe(event.value()));
        }
        check(in);
        ObjectNode stored = state.value();
        ObjectNode doc = stored != null ? stored : NODES.objectNode();
        if (stored == null) {
            doc.put(spec.keyAs(), event.key() == null ? null : new String(event.key(), StandardCharsets.UTF_8));
        }
        if (spec.count() != null) {
            doc.put(spec.count(), doc.path(spec.count()).asLong(0) + 1);
        }
        spec.sum().forEach((from, to) -> doc.set(to, add(doc.get(to), in.get(from))));
        spec.min().forEach((from, to) -> {
            JsonNode cur = doc.get(to);
            if (cur == null || in.get(from).asDouble() < cur.asDouble()) {
                doc.set(to, in.get(from));
            }
        });
        spec.max().forEach((from, to) -> {
            JsonNode cur = doc.get(to);
            if (cur == null || in.get(from).asDouble() > cur.asDouble()) {
                doc.set(to, in.get(from));
            }
        });
        if (!spec.avg().isEmpty()) {
            ObjectNode hidden = doc.has(AVERAGES) ? (ObjectNode) doc.get(AVERAGES) : doc.putObject(AVERAGES);
            spec.avg().forEach((from, to) -> {
                ArrayNode acc = hidden.has(to)
                        ? (ArrayNode) hidden.get(to)
                        : hidden.putArray(to).add(0).add(0);
                JsonNode sum = add(acc.get(0), in.get(from));
                long n = acc.get(1).asLong() + 1;
                acc.removeAll().add(sum).add(n);
                doc.put(to, sum.asDouble() / n);
            });
        }
        spec.last().forEach((from, to) -> doc.set(to, in.get(from)));
        state.update(doc);
        ObjectNode emitted = doc;
        if (doc.has(AVERAGES)) {
            emitted = doc.deepCopy();
            emitted.remove(AVERAGES);
        }
        out.emit(new Event(event.key(), emitted, event.timestamp()));
    }

    private void check(ObjectNode in) {
        for (Map<String, String> numeric : java.util.List.of(spec.sum(), spec.min(), spec.max(), spec.avg())) {
            for (String field : numeric.keySet()) {
                JsonNode v = in.get(field);
                if (v == null || v.isNull()) {
                    throw new BadRecordException("field '" + field + "' is missing");
                }
                if (!v.isNumber()) {
                    throw new BadRecordException("field '" + field + "' must be a number, was " + describe(v));
                }
            }
        }
        for (String field : spec.last().keySet()) {
            if (!in.has(field)) {
                throw new BadRecordException("field '" + field + "' is missing");
            }
        }
    }

    private static JsonNode add(JsonNode sum, JsonNode v) {
        if (sum == null) {
            return v.isIntegralNumber() && v.canConvertToLong()
                    ? NODES.numberNode(v.asLong())
                    : NODES.numberNode(v.asDouble());
        }
        if (sum.isIntegralNumber() && v.isIntegralNumber() && v.canConvertToLong()) {
            long a = sum.asLong();
            long b = v.asLong();
            long r = a + b;
            if (((a ^ r) & (b ^ r)) >= 0) { // no overflow
                return NODES.numberNode(r);
            }
        }
        return NODES.numberNode(sum.asDouble() + v.asDouble());
    }

    private static String describe(Object v) {
        if (v instanceof JsonNode n) {
            String text = n.toString();
            return n.getNodeType().name().toLowerCase() + " "
                    + (text.length() > 40 ? text.substring(0, 40) + "…" : text);
        }
        return v == null ? "null" : v.getClass().getSimpleName();
    }
}
