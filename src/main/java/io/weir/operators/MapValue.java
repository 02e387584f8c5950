package io.weir.operators;

import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Collector;
import io.weir.dataflow.Event;
import io.weir.dataflow.Operator;
import io.weir.dataflow.OperatorContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code map} step: replaces the value with an expression's result, or sets and drops fields of
 * a JSON object. Every expression reads the record as it arrived, so the order of {@code set}
 * entries does not matter; fields are set, then dropped.
 */
public final class MapValue implements Operator {
    private final RecordFunction replace;
    private final Map<String, RecordFunction> set;
    private final List<String> drop;
    private OperatorContext context;

    /** A map that replaces the whole value. */
    public static MapValue replacing(RecordFunction value) {
        return new MapValue(value, Map.of(), List.of());
    }

    /** A map that sets the fields of {@code set} (in order) and removes those of {@code drop}. */
    public static MapValue editing(Map<String, RecordFunction> set, List<String> drop) {
        return new MapValue(null, set, drop);
    }

    private MapValue(RecordFunction replace, Map<String, RecordFunction> set, List<String> drop) {
        this.replace = replace;
        this.set = new LinkedHashMap<>(set);
        this.drop = List.copyOf(drop);
    }

    @Override
    public void open(OperatorContext context) {
        this.context = context;
    }

    @Override
    public void process(Event event, Collector out) {
        if (replace != null) {
            out.emit(event.withValue(replace.apply(event, context)));
            return;
        }
        if (!(event.value() instanceof Map<?, ?> in)) {
            throw new BadRecordException(
                    "map sets and drops fields of a JSON object, but the value is " + Json.describe(event.value()));
        }
        Map<String, Object> results = new LinkedHashMap<>();
        for (Map.Entry<String, RecordFunction> e : set.entrySet()) {
            results.put(e.getKey(), e.getValue().apply(event, context));
        }
        Map<String, Object> value = new LinkedHashMap<>(in.size() + results.size());
        in.forEach((k, v) -> value.put((String) k, v));
        value.putAll(results);
        drop.forEach(value::remove);
        out.emit(event.withValue(value));
    }
}
