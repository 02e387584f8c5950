package io.weir.dataflow;

/** A key or value format at the edge of a stage: bytes from a source, bytes to a sink. */
public interface Codec {
    /** Decodes a source value; throws {@link BadRecordException} when it cannot. */
    Object decode(byte[] bytes);

    /**
     * Encodes a value; throws {@link BadRecordException} when this format cannot hold it (JSON has
     * no NaN or infinity, for one; text and bytes write a value that is neither as JSON text).
     */
    byte[] encode(Object value);

    /** Decodes a key: like {@link #decode} except that a null key is null, not an error. */
    default Object decodeKey(byte[] bytes) {
        return bytes == null ? null : decode(bytes);
    }

    /** The format's name as the configuration writes it. */
    String name();
}
