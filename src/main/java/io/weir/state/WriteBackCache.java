package io.weir.state;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * A write-back cache of recently used keys in front of a task's store (the RocksDB backend), in
 * the spirit of Kafka Streams' record cache: reads of hot keys and repeated writes to them stay on
 * the heap instead of crossing JNI for every record. A running aggregate reads and writes the same
 * few thousand keys per task over and over; this turns two native calls per record into two hash
 * lookups, and many writes of a key between checkpoints into one. Its size is a budget in bytes
 * that the backend shares among the tasks it has open (least recently used entries go first).
 *
 * <p>Correctness: dirty entries reach the inner store before anything that must see them — the
 * synchronous part of a snapshot (so checkpoint n holds every write before barrier n), a scan of a
 * prefix they fall under, and eviction. Entries lost on a crash were never in a checkpoint, so a
 * restore never misses them. Values are copied in and out, as the other stores do.
 *
 * <p>Threading: the task thread only, like the store it wraps; completions pass straight through.
 */
final class WriteBackCache implements StateStore {
    /** A removed key whose removal has not reached the inner store yet. */
    private static final byte[] DELETED = new byte[0];

    /** A cached value, and whether it still has to reach the inner store. */
    private static final class Entry {
        byte[] value;
        boolean dirty;

        Entry(byte[] value) {
            this.value = value;
        }
    }

    /** What an entry costs beyond its key and value bytes: the map's entry, the key wrapper, headers. */
    static final int ENTRY_OVERHEAD = 160;

    /** New entries between two looks at the limit, which changes as the backend opens and closes tasks. */
    private static final int LIMIT_EVERY = 256;

    private final RocksDbStateStore inner;
    private final java.util.function.LongSupplier maxBytes;
    /** What the entries cost, by {@link #cost}. */
    private long bytes;

    private long limit;
    private int untilLimit;
    /**
     * The dirty keys, sorted, so that a scan writes through the dirty entries under its prefix
     * only. A key enters once per checkpoint however often it is written: its entry's flag says it
     * is here already, which keeps the sorted set off the path of a hot key's repeated writes.
     */
    private final NavigableSet<Bytes> dirty = new TreeSet<>();

    private final LinkedHashMap<Bytes, Entry> entries;

    /**
     * @param maxBytes what the entries may cost at most (by {@link #cost}), asked every few hundred
     *     new entries: the backend shares one budget among the tasks it has open
     */
    WriteBackCache(RocksDbStateStore inner, java.util.function.LongSupplier maxBytes) {
        this.inner = inner;
        this.maxBytes = maxBytes;
        this.entries = new LinkedHashMap<>(1024, 0.75f, true);
    }

    /** What an entry costs against the budget. */
    static long cost(byte[] key, byte[] value) {
        return key.length + value.length + ENTRY_OVERHEAD;
    }

    /** What the entries cost now; for tests. */
    long bytes() {
        return bytes;
    }

    /** Evicts the least recently used entries (a dirty one written through) until within the budget. */
    private void evictBeyondLimit() {
        if (--untilLimit <= 0) {
            untilLimit = LIMIT_EVERY;
            limit = maxBytes.getAsLong();
        }
        if (bytes <= limit) {
            return;
        }
        for (Iterator<Map.Entry<Bytes, Entry>> it = entries.entrySet().iterator(); bytes > limit && it.hasNext(); ) {
            Map.Entry<Bytes, Entry> eldest = it.next();
            Entry e = eldest.getValue();
            if (e.dirty) {
                dirty.remove(eldest.getKey());
                writeThrough(eldest.getKey(), e);
            }
            bytes -= cost(eldest.getKey().array(), e.value);
            it.remove();
        }
    }

    /** The store behind the cache; for tests. */
    StateStore inner() {
        return inner;
    }

    @Override
    public byte[] get(byte[] key) {
        inner.ensureOpen(); // the backend may have closed the store under us
        Entry e = entries.get(new Bytes(key));
        if (e == null) {
            byte[] v = inner.get(key);
            byte[] cached = v == null ? DELETED : v.clone();
            entries.put(new Bytes(key.clone()), new Entry(cached));
            bytes += cost(key, cached);
            evictBeyondLimit();
            return v;
        }
        return e.value == DELETED ? null : e.value.clone();
    }

    @Override
    public void put(byte[] key, byte[] value) {
        inner.ensureOpen();
        if (value == null) {
            throw new IllegalArgumentException("state values must not be null; delete the key instead");
        }
        write(key, value.clone());
    }

    @Override
    public void delete(byte[] key) {
        inner.ensureOpen();
        write(key, DELETED);
    }

    private void write(byte[] key, byte[] value) {
        Entry e = entries.get(new Bytes(key));
        if (e == null) {
            Bytes k = new Bytes(key.clone());
            e = new Entry(value);
            e.dirty = true;
            dirty.add(k);
            entries.put(k, e);
            bytes += cost(key, value);
        } else {
            bytes += value.length - e.value.length;
            e.value = value;
            if (!e.dirty) {
                e.dirty = true;
                dirty.add(new Bytes(key.clone()));
            }
        }
        evictBeyondLimit();
    }

    @Override
    public Iterator<Map.Entry<byte[], byte[]>> scan(byte[] prefix) {
        return scan(prefix, prefix);
    }

    @Override
    public Iterator<Map.Entry<byte[], byte[]>> scan(byte[] prefix, byte[] from) {
        // Only the dirty entries the scan covers must reach the store first: a timer scan every few
        // milliseconds leaves the cached state entries alone.
        byte[] first = Arrays.compareUnsigned(from, prefix) > 0 ? from : prefix;
        for (Iterator<Bytes> it = dirty.tailSet(new Bytes(first), true).iterator(); it.hasNext(); ) {
            Bytes k = it.next();
            if (!startsWith(k.array(), prefix)) {
                break;
            }
            Entry e = entries.get(k);
            writeThrough(k, e);
            e.dirty = false;
            it.remove();
        }
        return inner.scan(prefix, first);
    }

    @Override
    public SnapshotPart snapshot(long checkpointId) {
        flush();
        return inner.snapshot(checkpointId);
    }

    @Override
    public void prepareSnapshot() {
        flush();
        inner.prepareSnapshot();
    }

    @Override
    public void checkpointCompleted(long checkpointId, StateHandle handle) {
        inner.checkpointCompleted(checkpointId, handle);
    }

    @Override
    public long approximateEntries() {
        return inner.approximateEntries();
    }

    @Override
    public RestoreSizes restoreSizes() {
        return inner.restoreSizes();
    }

    @Override
    public Map<String, Long> sampledProperties() {
        return inner.sampledProperties();
    }

    @Override
    public void close() {
        entries.clear();
        dirty.clear();
        bytes = 0;
        inner.close();
    }

    private void flush() {
        if (dirty.isEmpty()) {
            return;
        }
        List<Map.Entry<byte[], byte[]>> batch = new ArrayList<>(dirty.size());
        for (Bytes k : dirty) {
            Entry e = entries.get(k);
            batch.add(new AbstractMap.SimpleImmutableEntry<>(k.array(), e.value == DELETED ? null : e.value));
            e.dirty = false;
        }
        inner.writeAll(batch);
        dirty.clear();
    }

    private void writeThrough(Bytes key, Entry e) {
        if (e.value == DELETED) {
            inner.delete(key.array());
        } else {
            inner.put(key.array(), e.value);
        }
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }
}
