package io.weir.dataflow;

import io.weir.element.Header;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * How large a record each output topic accepts (the smaller of the producer's request limit and the
 * topic's message limit), and what to do with a dead letter that is larger: cut its key and value
 * to fit (said in headers) or drop them. A record that is too large would fail the epoch's
 * transaction, and the same input would fail it again after every restart.
 */
public record RecordLimits(ToIntFunction<String> maxBytes, boolean truncateDeadLetters) {

    /** Kafka's defaults: a producer request and a topic message of 1 MiB. */
    public static final int DEFAULT_MAX_BYTES = 1024 * 1024;

    public static RecordLimits defaults() {
        return new RecordLimits(topic -> DEFAULT_MAX_BYTES, true);
    }

    /**
     * An upper bound of a record's size in a batch of its own: the batch header (61 bytes), the
     * record's varint fields (at most 21 bytes) and every header's two lengths (at most 10 bytes).
     */
    public static int sizeUpperBound(byte[] key, byte[] value, List<Header> headers) {
        long size = 61 + 21 + length(key) + length(value);
        for (int i = 0, n = headers.size(); i < n; i++) { // no iterator per record
            Header h = headers.get(i);
            size += 10 + h.key().length() * 3L + length(h.value());
        }
        return (int) Math.min(Integer.MAX_VALUE, size);
    }

    private static int length(byte[] b) {
        return b == null ? 0 : b.length;
    }
}
