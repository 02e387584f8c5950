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

    /**
     * Decodes a key: like {@link #decode} except that a null key is null, not an error, and that a
     * key that cannot be decoded says so ("key is not valid JSON", not "value …").
     */
    default Object decodeKey(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        try {
            return decode(bytes);
        } catch (BadRecordException e) {
            String m = e.getMessage();
            throw new BadRecordException(
                    m.startsWith("value ") ? "key " + m.substring("value ".length()) : "key: " + m);
        }
    }

    /** The format's name as the configuration writes it. */
    String name();
}
