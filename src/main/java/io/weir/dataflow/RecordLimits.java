package io.weir.dataflow;

import io.weir.element.Header;
import java.util.List;
import java.util.function.Function;

/**
 * What each output topic accepts — records up to a size (the smaller of the producer's request
 * limit and the topic's message limit) and timestamps within a window around the broker's clock
 * ({@code message.timestamp.after.max.ms} / {@code before.max.ms}, unless the topic takes the
 * broker's time) — and what to do with a dead letter that is larger: cut its key and value to fit
 * (said in headers) or drop them. A record the broker refuses would fail the epoch's transaction,
 * and the same input would fail it again after every restart.
 */
public record RecordLimits(Function<String, Topic> topics, boolean truncateDeadLetters) {

    /** Kafka's defaults: a producer request and a topic message of 1 MiB. */
    public static final int DEFAULT_MAX_BYTES = 1024 * 1024;

    /**
     * One topic's limits: its largest record, and how far a record's timestamp may be ahead of or
     * behind the broker's clock (Long.MAX_VALUE: any).
     */
    public record Topic(int maxBytes, long maxAheadMs, long maxBehindMs) {
        /** A topic whose settings were not read: Kafka's default size, no timestamp check. */
        public static final Topic DEFAULT = new Topic(DEFAULT_MAX_BYTES, Long.MAX_VALUE, Long.MAX_VALUE);
    }

    public static RecordLimits defaults() {
        return new RecordLimits(topic -> Topic.DEFAULT, true);
    }

    /** The limits of {@code topic}. */
    public Topic of(String topic) {
        return topics.apply(topic);
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
