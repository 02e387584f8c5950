package io.weir.dataflow;

import io.weir.element.Header;
import java.util.List;

/**
 * A record between operators: its key, its value (decoded by the stage's value format: for JSON the
 * value model of {@code io.weir.operators.Json}), its event timestamp and its headers.
 */
public record Event(RecordKey key, Object value, long timestamp, List<Header> headers) {
    public Event {
        headers = headers == null ? List.of() : headers;
    }

    /** An event keyed by raw bytes, without headers. */
    public Event(byte[] key, Object value, long timestamp) {
        this(RecordKey.ofBytes(key, null), value, timestamp, List.of());
    }

    /** This event with another value, keeping key, timestamp and headers. */
    public Event withValue(Object newValue) {
        return new Event(key, newValue, timestamp, headers);
    }
}
