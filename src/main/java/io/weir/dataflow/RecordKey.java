package io.weir.dataflow;

import java.util.Arrays;

/**
 * A record's key in both forms: the bytes (what state is keyed by and Kafka partitions by) and the
 * value a {@link Codec} decodes them to (what expressions and operators see). Either form is made
 * from the other on first use, so a key that is only passed through is never decoded and a key
 * written with the codec it was read with is never re-encoded. A null key has null bytes and a
 * null value.
 *
 * <p>Threading: belongs to the task thread that made it.
 */
public final class RecordKey {
    private static final Object UNSET = new Object();

    private final Codec codec;
    private byte[] bytes;
    private Object value;
    private boolean encoded;

    private RecordKey(Codec codec, byte[] bytes, Object value, boolean encoded) {
        this.codec = codec;
        this.bytes = bytes;
        this.value = value;
        this.encoded = encoded;
    }

    /** A key as read: {@code codec} decodes it when its value is asked for (null: raw bytes). */
    public static RecordKey ofBytes(byte[] bytes, Codec codec) {
        return new RecordKey(codec, bytes, bytes == null ? null : UNSET, true);
    }

    /** A key made by a step: {@code codec} encodes it when its bytes are asked for. */
    public static RecordKey ofValue(Object value, Codec codec) {
        return new RecordKey(codec, null, value, false);
    }

    /** The serialised key; null for a null key. */
    public byte[] bytes() {
        if (!encoded) {
            bytes = value == null ? null : codec.encode(value);
            encoded = true;
        }
        return bytes;
    }

    /** The decoded key; null for a null key. Throws {@link BadRecordException} if it cannot be decoded. */
    public Object value() {
        if (value == UNSET) {
            value = codec == null ? bytes : codec.decodeKey(bytes);
        }
        return value;
    }

    /**
     * The key's bytes in {@code target}'s format: the bytes as they are when that is the key's own
     * format, or when the key is raw bytes without a format.
     */
    public byte[] bytesIn(Codec target) {
        if (target == codec || (codec == null && encoded)) {
            return bytes();
        }
        Object v = value();
        return v == null ? null : target.encode(v);
    }

    @Override
    public String toString() {
        byte[] b = bytes();
        return b == null ? "null" : Arrays.toString(b);
    }
}
