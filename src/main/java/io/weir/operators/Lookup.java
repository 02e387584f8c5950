package io.weir.operators;

import dev.cel.common.values.NullValue;
import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Codec;
import io.weir.dataflow.Collector;
import io.weir.dataflow.Event;
import io.weir.dataflow.Operator;
import io.weir.dataflow.OperatorContext;
import io.weir.element.InputPartition;
import io.weir.state.Serde;
import io.weir.state.ValueState;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code lookup} step: a stream-table join. The task reads partition p of the table topic along
 * with the stream, the lower timestamp first, and keeps the table's latest value per key in its
 * state (a tombstone deletes the key); a stream record gets field {@code as} set to its key's value
 * at that moment. An inner lookup drops a record whose key has no value, a left one sends it with
 * {@code as} null. Table records go no further than this step.
 */
public final class Lookup implements Operator {
    private final String tableTopic;
    private final Codec tableCodec;
    private final boolean left;
    private final String as;
    private OperatorContext context;
    private ValueState<byte[]> table;

    /** The state name of the table; exposed for tests. */
    public static String state(String topic) {
        return "lookup:" + topic;
    }

    public Lookup(String tableTopic, Codec tableCodec, boolean left, String as) {
        this.tableTopic = tableTopic;
        this.tableCodec = tableCodec;
        this.left = left;
        this.as = as;
    }

    @Override
    public void open(OperatorContext context) {
        this.context = context;
        this.table = context.state().valueState(state(tableTopic), Serde.BYTES);
    }

    @Override
    public void process(Event event, Collector out) {
        InputPartition input = context.currentInput();
        if (Aggregate.keyless(event)) {
            throw new BadRecordException("lookup needs a record key, and this record has none");
        }
        if (input != null && input.topic().equals(tableTopic)) {
            if (event.value() == null) {
                table.clear();
            } else {
                table.update(tableCodec.encode(event.value()));
            }
            return;
        }
        if (!(event.value() instanceof Map)) {
            throw new BadRecordException("lookup adds field " + as + " to the record, which needs a JSON object, was "
                    + Json.describe(event.value()));
        }
        byte[] row = table.value();
        if (row == null && !left) {
            return;
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> fields = new LinkedHashMap<>((Map<String, Object>) event.value());
        fields.put(as, row == null ? NullValue.NULL_VALUE : tableCodec.decode(row));
        out.emit(event.withValue(fields));
    }
}
