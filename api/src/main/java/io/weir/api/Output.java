package io.weir.api;

/**
 * Where a {@link Processor} emits its results: to the next step of the pipeline, with the key of
 * the record (or timer) being handled.
 *
 * <p>A value may be a {@code Map} (keys as strings), a {@code List}, a {@code String}, a
 * {@code Number} (integers become 64-bit, {@code float} becomes {@code double}), a {@code Boolean},
 * {@code null} (JSON null), a Jackson {@code JsonNode}, or a {@code byte[]} (kept as bytes for the
 * {@code bytes} format, Base64 text in JSON). Anything else is refused with an
 * {@link IllegalArgumentException}. The value is copied when emitted, so it may be changed
 * afterwards.
 *
 * <p>A processor cannot change the key: state and partitioning follow the key, and a task holds the
 * state of its partition's keys only. To re-key, put a {@code key-by} step after the processor; it
 * moves records to the partition of their new key.
 */
public interface Output {
    /** Emits {@code value} with the timestamp of the record being processed (of the timer, in onTimer). */
    void emit(Object value);

    /**
     * Emits {@code value} with {@code timestamp} (milliseconds since the epoch; a negative one is
     * refused with an {@link IllegalArgumentException}, as no Kafka record can carry it).
     */
    void emit(Object value, long timestamp);
}
