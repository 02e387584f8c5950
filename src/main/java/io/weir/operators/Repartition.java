package io.weir.operators;

import io.weir.dataflow.Codec;
import io.weir.dataflow.Collector;
import io.weir.dataflow.Event;
import io.weir.dataflow.Operator;
import io.weir.dataflow.OperatorContext;

/**
 * The {@code key-by} step: computes the new key and writes the record to the repartition topic in
 * the epoch's transaction, keyed by it (JSON, so the next stage reads back the key's type), with its
 * timestamp and headers. It ends its stage; the next stage reads the topic read_committed, so it sees
 * the record once the epoch's checkpoint committed, and Kafka's partitioner puts each key in one
 * partition, hence one task.
 */
public final class Repartition implements Operator {
    private final RecordFunction key;
    private final String topic;
    private final Codec valueCodec;
    private OperatorContext context;

    public Repartition(RecordFunction key, String topic, Codec valueCodec) {
        this.key = key;
        this.topic = topic;
        this.valueCodec = valueCodec;
    }

    @Override
    public void open(OperatorContext context) {
        this.context = context;
    }

    @Override
    public void process(Event event, Collector out) {
        Object newKey = key.apply(event, context);
        byte[] k = Codecs.JSON.encode(newKey);
        byte[] v = event.valueIn(valueCodec);
        context.send(topic, k, v, event.timestamp(), event.headers());
    }
}
