package io.weir.dataflow;

import io.weir.element.Header;
import java.util.List;

/**
 * A record between operators: its key, its value (decoded by the stage's value format: for JSON the
 * value model of {@code io.weir.operators.Json}), its event timestamp and its headers.
 *
 * <p>An event as read also keeps the bytes its value was decoded from and their format, so that a
 * step writing the value unchanged in the same format (a sink after a filter, a {@code key-by})
 * sends those bytes instead of encoding the value again; a new value ({@link #withValue}) drops them.
 * Values are never changed in place: a step that changes one makes a new value.
 */
public record Event(
        RecordKey key, Object value, long timestamp, List<Header> headers, byte[] valueBytes, Codec valueFormat) {
    public Event {
        headers = headers == null ? List.of() : headers;
    }

    public Event(RecordKey key, Object value, long timestamp, List<Header> headers) {
        this(key, value, timestamp, headers, null, null);
    }

    /** An event keyed by raw bytes, without headers. */
    public Event(byte[] key, Object value, long timestamp) {
        this(RecordKey.ofBytes(key, null), value, timestamp, List.of());
    }

    /** This event with another value, keeping key, timestamp and headers. */
    public Event withValue(Object newValue) {
        return new Event(key, newValue, timestamp, headers);
    }

    /** This event at another timestamp, keeping the rest (the value's bytes too). */
    public Event withTimestamp(long newTimestamp) {
        return new Event(key, value, newTimestamp, headers, valueBytes, valueFormat);
    }

    /** The value in {@code format}: the bytes it was read as when that is their format, else encoded. */
    public byte[] valueIn(Codec format) {
        return valueBytes != null && format == valueFormat ? valueBytes : format.encode(value);
    }
}
