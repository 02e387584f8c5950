package io.weir.state;

import java.util.Iterator;
import java.util.Map;

/**
 * The state of one task as an ordered byte-key/byte-value map, with copy-on-write snapshots.
 *
 * <p>Threading: every method is called by the task's worker thread only, except
 * {@link SnapshotPart#write} of a returned part (an uploader thread) and {@link #checkpointCompleted}
 * (the coordinator's thread), which implementations make safe against the task thread.
 */
public interface StateStore extends AutoCloseable {
    /** The value of {@code key} (null: none), as an array the caller owns. */
    byte[] get(byte[] key);

    /**
     * The value of {@code key} (null: none) deserialised by {@code serde}. A store that keeps values
     * as arrays hands a serde that {@link Serde#copiesOut copies out} its own array instead of a copy.
     */
    default <T> T read(byte[] key, Serde<T> serde) {
        byte[] v = get(key);
        return v == null ? null : serde.deserialize(v);
    }

    void put(byte[] key, byte[] value);

    void delete(byte[] key);

    /**
     * As {@link #put}, for a point key: one that no {@link #scan} prefix ever covers (a value
     * state's). A cache keeps such keys out of the sorted index it needs for scans.
     */
    default void putPoint(byte[] key, byte[] value) {
        put(key, value);
    }

    /** As {@link #delete}, for a point key (see {@link #putPoint}). */
    default void deletePoint(byte[] key) {
        delete(key);
    }

    /**
     * Entries whose key starts with {@code prefix}, in unsigned lexicographic key order. The store
     * must not be changed while the iterator is in use.
     */
    Iterator<Map.Entry<byte[], byte[]>> scan(byte[] prefix);

    /**
     * Like {@link #scan(byte[])}, starting at the first key at or after {@code from}: a queue that
     * removes from its head (timers) seeks past what it removed instead of stepping over it again.
     */
    default Iterator<Map.Entry<byte[], byte[]>> scan(byte[] prefix, byte[] from) {
        Iterator<Map.Entry<byte[], byte[]>> all = scan(prefix);
        java.util.ArrayDeque<Map.Entry<byte[], byte[]>> rest = new java.util.ArrayDeque<>();
        while (all.hasNext()) {
            Map.Entry<byte[], byte[]> e = all.next();
            if (java.util.Arrays.compareUnsigned(e.getKey(), from) >= 0) {
                rest.add(e);
            }
        }
        return rest.iterator();
    }

    /** The synchronous part of snapshot {@code checkpointId}: captures the current version. */
    SnapshotPart snapshot(long checkpointId);

    /**
     * A snapshot is near: start, in the background, what the synchronous part would otherwise do
     * all at once (RocksDB: write the cached writes through and flush the memtable without waiting),
     * so that the pause at the barrier covers only the writes after this call. A hint: a store may
     * ignore it, and calling it at any time changes no state.
     */
    default void prepareSnapshot() {}

    /**
     * Checkpoint {@code checkpointId} completed with {@code handle} as this task's part: an
     * incremental backend may now build on its files. Completions arrive in id order.
     */
    default void checkpointCompleted(long checkpointId, StateHandle handle) {}

    /** Approximate number of entries, for metrics and logs. */
    long approximateEntries();

    /**
     * The backend's own size figures as sampled by the last {@link #snapshot} (RocksDB, in bytes:
     * memtables before the snapshot's flush, live data and SST files after it); empty for backends
     * without any. Safe from any thread: it returns what was sampled, it touches no native handle.
     */
    default Map<String, Long> sampledProperties() {
        return Map.of();
    }

    /** What restoring this store took from local files and from the snapshot store; NONE if it started empty. */
    default RestoreSizes restoreSizes() {
        return RestoreSizes.NONE;
    }

    @Override
    void close();
}
