package io.weir.operators;

import io.weir.dataflow.Codec;
import io.weir.dataflow.Collector;
import io.weir.dataflow.Event;
import io.weir.dataflow.Operator;
import io.weir.dataflow.OperatorContext;

/**
 * Writes each record to a topic in the epoch's transaction: the value in the sink's format, the key
 * in its key format (bytes passed through when that is the format they were read in) or, when the
 * sink names a key expression, that expression's result. The record keeps its timestamp and headers.
 * It ends a chain, and is the operator inside each case of a route.
 */
public final class Sink implements Operator {
    private final String topic;
    private final Codec keyCodec;
    private final Codec valueCodec;
    private final RecordFunction key;
    private OperatorContext context;

    /**
     * @param key computes the output key from the record, or null to write the record's key
     */
    public Sink(String topic, Codec keyCodec, Codec valueCodec, RecordFunction key) {
        this.topic = topic;
        this.keyCodec = keyCodec;
        this.valueCodec = valueCodec;
        this.key = key;
    }

    public String topic() {
        return topic;
    }

    @Override
    public void open(OperatorContext context) {
        this.context = context;
    }

    @Override
    public void process(Event event, Collector out) {
        byte[] k;
        if (key == null) {
            k = event.key().bytesIn(keyCodec);
        } else {
            Object v = key.apply(event, context);
            k = keyCodec.encode(v);
        }
        byte[] value = event.valueIn(valueCodec);
        context.send(topic, k, value, event.timestamp(), event.headers());
    }
}
