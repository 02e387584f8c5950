package io.weir.state;

import java.util.Arrays;
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
    private static final int HEADER = 12;
    private static final byte DELETION = 0x0;
    private static final byte VALUE = 0x1;
    private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

    private WriteBatches() {}

    /**
     * The serialized batch of {@code entries}, in their order. One pass over them, into an array
     * that doubles as it fills and is cut to size at the end: with many dirty keys each entry's
     * arrays are a cache miss, and a pass that measured the batch first cost as much again (a
     * preparation's flush with 1,000,000 users).
     */
    static byte[] serialize(Iterable<? extends Map.Entry<byte[], byte[]>> entries) {
        byte[] out = new byte[4096];
        int at = HEADER; // the sequence number stays 0; the count follows it
        int count = 0;
        for (Map.Entry<byte[], byte[]> e : entries) {
            byte[] key = e.getKey();
            byte[] value = e.getValue();
            long needed = (long) at + 1 + 5 + key.length + (value == null ? 0 : 5 + value.length);
            if (needed > out.length) {
                out = grown(out, needed);
            }
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
        putFixed32(out, 8, count);
        return at == out.length ? out : Arrays.copyOf(out, at);
    }

    /** {@code out} copied into an array of at least {@code needed} bytes, twice as long if it can be. */
    private static byte[] grown(byte[] out, long needed) {
        if (needed > MAX_ARRAY) {
            throw new IllegalArgumentException(
                    "a write batch of more than " + MAX_ARRAY + " bytes does not fit in an array");
        }
        return Arrays.copyOf(out, (int) Math.max(needed, Math.min(MAX_ARRAY, 2L * out.length)));
    }

    /** The serialized size of {@code entries}, as {@link #serialize} would build it. */
    static long size(Iterable<? extends Map.Entry<byte[], byte[]>> entries) {
        long size = HEADER;
        for (Map.Entry<byte[], byte[]> e : entries) {
            size += 1 + varintLength(e.getKey().length) + e.getKey().length;
            if (e.getValue() != null) {
                size += varintLength(e.getValue().length) + e.getValue().length;
            }
        }
        return size;
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
