package io.weir.dataflow;

/** A value format at the edge of a stage: bytes from a source, bytes to a sink. */
public interface Codec {
    /** Decodes a source value; throws {@link BadRecordException} when it cannot. */
    Object decode(byte[] bytes);

    byte[] encode(Object value);
}
