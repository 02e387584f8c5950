package io.weir.state;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
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
 * that the backend shares among the tasks it has open (entries not used lately go first: {@link
 * CacheTable}'s clock).
 *
 * <p>Correctness: dirty entries reach the inner store before anything that must see them — a scan
 * of a prefix they fall under (point keys, {@link #putPoint}, are by contract under none), eviction,
 * a snapshot's preparation — and a snapshot takes them along as they are (so checkpoint n holds
 * every write before barrier n: {@link RocksDbStateStore#snapshot(long, java.util.List)}). Entries lost on a crash were never in a checkpoint, so a
 * restore never misses them. Values are copied in and out, as the other stores do.
 *
 * <p>Threading: the task thread only, like the store it wraps; completions pass straight through.
 */
final class WriteBackCache implements StateStore {
    /** A removed key whose removal has not reached the inner store yet. */
    private static final byte[] DELETED = new byte[0];
    /** Dirty entries beyond this many serialized bytes are written through at a snapshot instead. */
    static final long MAX_CARRIED_BYTES = 256L << 20;

    /**
     * A cached value under its key, and whether it still has to reach the inner store; as a map
     * entry it is what a flush hands to the store (a null value deletes).
     */
    static final class Entry implements Map.Entry<byte[], byte[]> {
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
        /** Dirty and in the sorted set {@link #dirty}: written as a key a scan may cover. */
        boolean sorted;
        /** Dirty and at this index of {@link #dirtyPoints}, else -1. */
        int listed = -1;

        Entry(byte[] key, byte[] value) {
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

    /**
     * What an entry costs beyond its key and value bytes: the entry, the arrays' headers and its
     * share of the table's slots.
     */
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
     * The dirty keys a scan may cover, sorted, so that a scan writes through the dirty entries under
     * its prefix only. A key enters once per checkpoint however often it is written: its entry's
     * flag says it is here already, which keeps the sorted set off the path of a hot key's repeated
     * writes.
     */
    private final NavigableSet<Entry> dirty = new TreeSet<>(BY_KEY);

    /** Unsigned lexicographic, as RocksDB's default comparator orders keys. */
    private static final Comparator<Entry> BY_KEY = (a, b) -> Arrays.compareUnsigned(a.key, b.key);

    /**
     * The dirty entries of point keys ({@link #putPoint}: no scan covers them), in no order: with a
     * large key space nearly every write dirties a new key, and a sorted set cost more than the rest
     * of the record. A dirty entry is here or in {@link #dirty}, never in both; one evicted leaves
     * (swapped with the last), so the list never holds more than the cache.
     */
    private final List<Entry> dirtyPoints = new ArrayList<>();

    /** The entry of the last key read or written, which a value state writes right after reading. */
    private Entry last;

    private final CacheTable entries = new CacheTable();
    private final long maxCarriedBytes;

    /**
     * @param maxBytes what the entries may cost at most (by {@link #cost}), asked every few hundred
     *     new entries: the backend shares one budget among the tasks it has open
     */
    WriteBackCache(RocksDbStateStore inner, java.util.function.LongSupplier maxBytes) {
        this(inner, maxBytes, MAX_CARRIED_BYTES);
    }

    /** @param maxCarriedBytes dirty entries a snapshot carries along at most, serialized; 0: none */
    WriteBackCache(RocksDbStateStore inner, java.util.function.LongSupplier maxBytes, long maxCarriedBytes) {
        this.inner = inner;
        this.maxBytes = maxBytes;
        this.maxCarriedBytes = maxCarriedBytes;
    }

    /** What an entry costs against the budget. */
    static long cost(byte[] key, byte[] value) {
        return key.length + value.length + ENTRY_OVERHEAD;
    }

    /** What the entries cost now; for tests. */
    long bytes() {
        return bytes;
    }

    /**
     * Evicts entries not used lately (a dirty one written through) until within the budget: the
     * clock's second chance, which approximates least recently used without relinking an entry at
     * every access.
     */
    private void evictBeyondLimit() {
        if (--untilLimit <= 0) {
            untilLimit = LIMIT_EVERY;
            limit = maxBytes.getAsLong();
        }
        while (bytes > limit && entries.size() > 0) {
            Entry e = entries.nextVictim();
            if (e.dirty) {
                if (e.sorted) {
                    dirty.remove(e);
                    e.sorted = false;
                } else {
                    unlist(e);
                }
                writeThrough(e);
                e.dirty = false;
            }
            bytes -= cost(e.key, e.value);
            if (e == last) {
                last = null;
            }
            entries.remove(e);
        }
    }

    /** The store behind the cache; for tests. */
    StateStore inner() {
        return inner;
    }

    @Override
    public byte[] get(byte[] key) {
        inner.ensureOpen(); // the backend may have closed the store under us
        Entry e = lookUp(key);
        if (e == null) {
            return load(key);
        }
        e.referenced = true;
        return e.value == DELETED ? null : e.value.clone();
    }

    /** Reads a key the cache does not hold from RocksDB and caches a copy; returns RocksDB's array. */
    private byte[] load(byte[] key) {
        byte[] v = inner.get(key);
        byte[] cached = v == null ? DELETED : v.clone();
        Entry e = new Entry(key.clone(), cached);
        entries.add(e);
        bytes += cost(key, cached);
        last = e;
        evictBeyondLimit();
        return v;
    }

    @Override
    public <T> T read(byte[] key, Serde<T> serde) {
        if (!serde.copiesOut()) {
            return StateStore.super.read(key, serde);
        }
        inner.ensureOpen();
        Entry e = lookUp(key);
        if (e == null) {
            byte[] v = load(key);
            return v == null ? null : serde.deserialize(v);
        }
        e.referenced = true;
        return e.value == DELETED ? null : serde.deserialize(e.value);
    }

    /**
     * The cached entry of {@code key}, or null. The entry looked up last is tried first: a value
     * state reads its key and writes it right after, and one compare costs less than hashing the
     * key and walking a large table again.
     */
    private Entry lookUp(byte[] key) {
        Entry e = last;
        if (e != null && Arrays.equals(e.key, key)) {
            return e;
        }
        e = entries.find(key);
        last = e;
        return e;
    }

    @Override
    public void put(byte[] key, byte[] value) {
        write(key, checked(value), true);
    }

    @Override
    public void delete(byte[] key) {
        write(key, DELETED, true);
    }

    @Override
    public void putPoint(byte[] key, byte[] value) {
        write(key, checked(value), false);
    }

    @Override
    public void deletePoint(byte[] key) {
        write(key, DELETED, false);
    }

    private static byte[] checked(byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("state values must not be null; delete the key instead");
        }
        return value;
    }

    /** The cache's own copy of a caller's value ({@link #DELETED} as it is). */
    private static byte[] owned(byte[] value) {
        return value == DELETED ? DELETED : value.clone();
    }

    /**
     * Writes {@code value} (the caller's array, copied; {@link #DELETED} removes) under {@code key}.
     * A value as long as the one cached goes into the cached array unless a snapshot holds that
     * array: a running aggregate's row keeps its length, and rewriting it where it is keeps a hot
     * key's value at one address instead of a new array per record that the next record's read of
     * another key finds far from the caches.
     */
    private void write(byte[] key, byte[] value, boolean scannable) {
        inner.ensureOpen();
        Entry e = lookUp(key);
        if (e == null) {
            byte[] copy = owned(value);
            e = new Entry(key.clone(), copy);
            entries.add(e);
            bytes += cost(key, copy);
            last = e;
        } else {
            e.referenced = true;
            byte[] held = e.value;
            if (value != DELETED && held != DELETED && !e.shared && held.length == value.length) {
                System.arraycopy(value, 0, held, 0, value.length);
            } else {
                byte[] copy = owned(value);
                bytes += copy.length - held.length;
                e.value = copy;
                e.shared = false;
            }
        }
        if (!e.dirty) {
            e.dirty = true;
            if (scannable) {
                e.sorted = true;
                dirty.add(e);
            } else {
                e.listed = dirtyPoints.size();
                dirtyPoints.add(e);
            }
        } else if (scannable && !e.sorted) {
            unlist(e); // a point key written as one a scan may cover: where scans look from now on
            e.sorted = true;
            dirty.add(e);
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
        for (Iterator<Entry> it = dirty.tailSet(new Entry(first, null), true).iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (!startsWith(e.key, prefix)) {
                break;
            }
            writeThrough(e);
            e.dirty = false;
            e.sorted = false;
            it.remove();
        }
        return inner.scan(prefix, first);
    }

    @Override
    public SnapshotPart snapshot(long checkpointId) {
        // The dirty entries stay dirty (the next preparation writes them through) and go into the
        // checkpoint as they are: a pair of references each, serialized by the uploader, is cheaper
        // than writing them into RocksDB now. The arrays are safe to share: an entry marked shared
        // gets a new array at its next write instead of a write into this one, and keys never change.
        List<Entry> dirtyNow = dirtyEntries();
        if (WriteBatches.size(dirtyNow) > maxCarriedBytes) {
            flush();
            return inner.snapshot(checkpointId);
        }
        List<Map.Entry<byte[], byte[]>> pending = new ArrayList<>(dirtyNow.size());
        for (Entry e : dirtyNow) {
            e.shared = true;
            pending.add(new AbstractMap.SimpleImmutableEntry<>(e.key, e.getValue()));
        }
        return inner.snapshot(checkpointId, pending);
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
        dirtyPoints.clear();
        last = null;
        bytes = 0;
        inner.close();
    }

    private void flush() {
        if (dirty.isEmpty() && dirtyPoints.isEmpty()) {
            return;
        }
        List<Entry> batch = dirtyEntries();
        // One walk clears the flags and sums the batch's size, the other writes it: with many dirty
        // keys each walk is a cache miss per entry (a third one measured the batch). The flags are
        // clear before the write: a write that fails fails the task, which restores from a checkpoint.
        long size = WriteBatches.HEADER;
        for (Entry e : batch) {
            e.dirty = false;
            e.sorted = false;
            e.listed = -1;
            size += WriteBatches.sizeOf(e.key, e.getValue());
        }
        dirty.clear();
        dirtyPoints.clear();
        inner.writeAll(batch, size);
    }

    /** The dirty entries: those a scan may cover in key order, then the point keys. */
    private List<Entry> dirtyEntries() {
        List<Entry> all = new ArrayList<>(dirty.size() + dirtyPoints.size());
        all.addAll(dirty);
        all.addAll(dirtyPoints);
        return all;
    }

    /** Takes {@code e} out of {@link #dirtyPoints}, the last entry taking its place. */
    private void unlist(Entry e) {
        Entry moved = dirtyPoints.remove(dirtyPoints.size() - 1);
        if (moved != e) {
            dirtyPoints.set(e.listed, moved);
            moved.listed = e.listed;
        }
        e.listed = -1;
    }

    /** Dirty entries listed as point keys; for tests. */
    int listedDirtyPoints() {
        return dirtyPoints.size();
    }

    /** Cached entries; for tests. */
    int cachedEntries() {
        return entries.size();
    }

    private void writeThrough(Entry e) {
        if (e.value == DELETED) {
            inner.delete(e.key);
        } else {
            inner.put(e.key, e.value);
        }
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }
}
