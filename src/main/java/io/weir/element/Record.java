package io.weir.element;

import java.util.List;

/**
 * An input record as read from its source partition: the original bytes (kept so a bad record can
 * go to the dead-letter topic unchanged), its timestamp and its offset in the partition.
 */
public record Record(byte[] key, byte[] value, long timestamp, long offset, List<Header> headers) implements Element {
    public Record {
        headers = headers == null ? List.of() : headers;
    }

    public Record(byte[] key, byte[] value, long timestamp, long offset) {
        this(key, value, timestamp, offset, List.of());
    }
}
