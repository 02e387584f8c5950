package io.weir.operators;

import io.weir.api.Record;
import io.weir.dataflow.Event;
import io.weir.dataflow.OperatorContext;
import io.weir.element.Header;
import io.weir.element.InputPartition;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A record as a custom operator sees it ({@link Record}): a view over the {@link Event} and the
 * task's current input position. Key, value and headers are converted to plain Java on first use,
 * so a processor that only looks at the key never pays for the value.
 */
final class RecordView implements Record {
    private static final Object UNSET = new Object();

    private final Event event;
    private final InputPartition input;
    private final long offset;
    private Object key = UNSET;
    private Object value = UNSET;
    private Map<String, String> headers;

    RecordView(Event event, OperatorContext context) {
        this.event = event;
        this.input = context.currentInput();
        this.offset = context.currentOffset();
    }

    @Override
    public Object key() {
        if (key == UNSET) {
            key = JavaValues.toJava(event.key().value());
        }
        return key;
    }

    @Override
    public Object value() {
        if (value == UNSET) {
            value = JavaValues.toJava(event.value());
        }
        return value;
    }

    @Override
    public Map<String, String> headers() {
        if (headers == null) {
            Map<String, String> map = new LinkedHashMap<>();
            for (Header h : event.headers()) {
                map.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
            }
            headers = Collections.unmodifiableMap(map);
        }
        return headers;
    }

    @Override
    public long timestamp() {
        return event.timestamp();
    }

    @Override
    public String topic() {
        return input == null ? null : input.topic();
    }

    @Override
    public int partition() {
        return input == null ? -1 : input.partition();
    }

    @Override
    public long offset() {
        return offset;
    }

    @Override
    public String toString() {
        return "Record[" + topic() + "-" + partition() + "@" + offset + ", timestamp " + timestamp() + "]";
    }
}
