package io.weir.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * The record a {@link Processor} is given: its key, value, headers, timestamp and where it was read.
 *
 * <p>Values are plain Java: a JSON object is a {@code Map<String,Object>} (field order kept), an
 * array a {@code List<Object>}, an integer a {@code Long}, a number with a fraction a {@code Double},
 * then {@code String}, {@code Boolean}, and JSON null is Java {@code null}. A record read with format
 * {@code string} has a {@code String} value, one read with {@code bytes} a {@code byte[]}. The maps
 * and lists returned are the processor's own copies: changing them changes nothing else.
 */
public interface Record {
    /**
     * The key, decoded by the stage's key format: a {@code String} for {@code string}, a
     * {@code byte[]} for {@code bytes}, a value as described above for {@code json}; null when the
     * record has no key.
     */
    Object key();

    /** The value, as described above. */
    Object value();

    /**
     * The value as a JSON object.
     *
     * @throws IllegalStateException when the value is not an object, naming what it is
     */
    @SuppressWarnings("unchecked")
    default Map<String, Object> valueAsMap() {
        Object v = value();
        if (v instanceof Map<?, ?> map) {
            return (Map<String, Object>) map;
        }
        throw new IllegalStateException("the record's value is "
                + (v == null ? "null" : "a " + v.getClass().getName()) + ", expected a JSON object");
    }

    /** The value as a Jackson tree (JSON null as a {@code NullNode}, bytes as a binary node). */
    default JsonNode valueAsJson() {
        return JsonHolder.MAPPER.valueToTree(value());
    }

    /** The headers, their values read as UTF-8; when a header repeats, its last value. */
    Map<String, String> headers();

    /** The record's timestamp in milliseconds since the epoch. */
    long timestamp();

    /** The input topic the record was read from. */
    String topic();

    /** The partition of {@link #topic()} the record was read from. */
    int partition();

    /** The record's offset in its partition. */
    long offset();
}
