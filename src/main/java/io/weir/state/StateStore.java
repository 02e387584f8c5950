package io.weir.state;

import java.util.Iterator;
import java.util.Map;

/**
 * The state of one task as an ordered byte-key/byte-value map, with copy-on-write snapshots.
 *
 * <p>Threading: every method but {@link SnapshotPart#write} of a returned part is called by the
 * task's worker thread only.
 */
public interface StateStore extends AutoCloseable {
    byte[] get(byte[] key);

    void put(byte[] key, byte[] value);

    void delete(byte[] key);

    /** Entries whose key starts with {@code prefix}, in unsigned lexicographic key order. */
    Iterator<Map.Entry<byte[], byte[]>> scan(byte[] prefix);

    /** The synchronous part of snapshot {@code checkpointId}: captures the current version. */
    SnapshotPart snapshot(long checkpointId);

    /** Approximate number of entries, for metrics and logs. */
    long approximateEntries();

    @Override
    void close();
}
