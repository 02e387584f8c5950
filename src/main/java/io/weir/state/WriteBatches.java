package io.weir.state;

import java.util.Map;

/**
 * Builds a RocksDB write batch in its serialized form ({@code WriteBatch::rep_}) on the heap: a
 * 12-byte header (sequence number, 0 until written; record count, both little-endian) followed by
 * one record per entry — a put is type 1, the key and the value each after its length as a
 * varint32; a delete (a null value) is type 0 and the key. Handing RocksDB the bytes at once
 * ({@code new WriteBatch(byte[])}) replaces a native call per entry; the same bytes are the file of
 * cached writes a checkpoint carries ({@link RocksDbStateStore#CACHED_WRITES}).
 */
final class WriteBatches {
    static final int HEADER = 12;
    private static final byte DELETION = 0x0;
    private static final byte VALUE = 0x1;

    private WriteBatches() {}

    /** The serialized batch of {@code entries}, in their order. */
    static byte[] serialize(Iterable<? extends Map.Entry<byte[], byte[]>> entries) {
        return serialize(entries, size(entries));
    }

    /**
     * The serialized batch of {@code entries}, whose {@link #size} the caller knows already (the
     * write-back cache's flush sums it while it walks its dirty entries anyway: with many keys each
     * walk is a cache miss per entry).
     */
    static byte[] serialize(Iterable<? extends Map.Entry<byte[], byte[]>> entries, long size) {
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a write batch of " + size + " bytes does not fit in an array");
        }
        byte[] out = new byte[(int) size];
        int at = HEADER; // the sequence number stays 0; the count follows it
        int count = 0;
        for (Map.Entry<byte[], byte[]> e : entries) {
            byte[] key = e.getKey();
            byte[] value = e.getValue();
            out[at++] = value == null ? DELETION : VALUE;
            at = putVarint(out, at, key.length);
            System.arraycopy(key, 0, out, at, key.length);
            at += key.length;
            if (value != null) {
                at = putVarint(out, at, value.length);
                System.arraycopy(value, 0, out, at, value.length);
                at += value.length;
            }
            count++;
        }
        if (at != size) {
            throw new IllegalStateException("a write batch of " + at + " bytes was said to take " + size);
        }
        putFixed32(out, 8, count);
        return out;
    }

    /** The serialized size of {@code entries}, as {@link #serialize} would build it. */
    static long size(Iterable<? extends Map.Entry<byte[], byte[]>> entries) {
        long size = HEADER;
        for (Map.Entry<byte[], byte[]> e : entries) {
            size += sizeOf(e.getKey(), e.getValue());
        }
        return size;
    }

    /** The bytes one entry takes in a batch (a null value: a delete); a batch adds {@link #HEADER}. */
    static long sizeOf(byte[] key, byte[] value) {
        long size = 1 + varintLength(key.length) + key.length;
        return value == null ? size : size + varintLength(value.length) + value.length;
    }

    private static void putFixed32(byte[] out, int at, int v) {
        out[at] = (byte) v;
        out[at + 1] = (byte) (v >>> 8);
        out[at + 2] = (byte) (v >>> 16);
        out[at + 3] = (byte) (v >>> 24);
    }

    private static int putVarint(byte[] out, int at, int v) {
        while ((v & ~0x7F) != 0) {
            out[at++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out[at++] = (byte) v;
        return at;
    }

    private static int varintLength(int v) {
        int n = 1;
        while ((v & ~0x7F) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }
}
