package io.weir.state;

import java.util.Map;

/**
 * A cached value under its key, and whether it still has to reach the inner store; as a map
 * entry it is what a flush hands to the store (a null value deletes).
 *
 * <p>Threading: its cache's, the task thread only.
 */
final class CacheEntry implements Map.Entry<byte[], byte[]> {
    /** A removed key whose removal has not reached the inner store yet. */
    static final byte[] DELETED = new byte[0];

    final byte[] key;
    /** {@link CacheTable#hash} of the key. */
    final int hash;

    byte[] value;
    /** Read or written since the eviction clock last passed it. */
    boolean referenced = true;

    boolean dirty;
    /**
     * {@link #value} is held by a snapshot not yet written out, so the next write replaces the
     * array instead of writing into it.
     */
    boolean shared;
    /** Dirty and in the sorted set of {@link DirtyEntries}: written as a key a scan may cover. */
    boolean sorted;
    /** Dirty and at this index of {@link DirtyEntries}' list of point keys, else -1. */
    int listed = -1;

    CacheEntry(byte[] key, byte[] value) {
        this.key = key;
        this.hash = CacheTable.hash(key);
        this.value = value;
    }

    @Override
    public byte[] getKey() {
        return key;
    }

    @Override
    public byte[] getValue() {
        return value == DELETED ? null : value;
    }

    @Override
    public byte[] setValue(byte[] v) {
        throw new UnsupportedOperationException();
    }
}
