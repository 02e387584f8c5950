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
 * lookups, and many writes of a key between checkpoints into one.
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

    private final RocksDbStateStore inner;
    /**
     * The dirty keys, sorted, so that a scan writes through the dirty entries under its prefix
     * only. A key enters once per checkpoint however often it is written: its entry's flag says it
     * is here already, which keeps the sorted set off the path of a hot key's repeated writes.
     */
    private final NavigableSet<Bytes> dirty = new TreeSet<>();

    private final LinkedHashMap<Bytes, Entry> entries;

    WriteBackCache(RocksDbStateStore inner, int capacity) {
        this.inner = inner;
        this.entries = new LinkedHashMap<>(Math.min(capacity, 1 << 16) * 2, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Bytes, Entry> eldest) {
                if (size() <= capacity) {
                    return false;
                }
                if (eldest.getValue().dirty) {
                    dirty.remove(eldest.getKey());
                    writeThrough(eldest.getKey(), eldest.getValue());
                }
                return true;
            }
        };
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
            entries.put(new Bytes(key.clone()), new Entry(v == null ? DELETED : v.clone()));
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
        } else {
            e.value = value;
            if (!e.dirty) {
                e.dirty = true;
                dirty.add(new Bytes(key.clone()));
            }
        }
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
