package io.weir.state;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;

/**
 * A write-back cache of recently used keys in front of a task's store (the RocksDB backend), in
 * the spirit of Kafka Streams' record cache: reads of hot keys and repeated writes to them stay on
 * the heap instead of crossing JNI for every record. A running aggregate reads and writes the same
 * few thousand keys per task over and over; this turns two native calls per record into two hash
 * lookups, and many writes of a key between checkpoints into one. Its size is a budget in bytes
 * that the backend shares among the tasks it has open (entries not used lately go first: {@link
 * CacheTable}'s clock). Its entries are {@link CacheEntry}s; the dirty ones are {@link
 * DirtyEntries}' to write through.
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
    /** {@link CacheEntry#DELETED}: a removed key whose removal has not reached the inner store yet. */
    private static final byte[] DELETED = CacheEntry.DELETED;
    /** Dirty entries beyond this many serialized bytes are written through at a snapshot instead. */
    static final long MAX_CARRIED_BYTES = 256L << 20;

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
    /** The dirty entries, written through before anything that must see them. */
    private final DirtyEntries dirty;

    /** The entry of the last key read or written, which a value state writes right after reading. */
    private CacheEntry last;

    private final CacheTable entries = new CacheTable();

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
        this.dirty = new DirtyEntries(inner, maxCarriedBytes);
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
            CacheEntry e = entries.nextVictim();
            if (e.dirty) {
                dirty.writeThroughEvicted(e);
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
        CacheEntry e = lookUp(key);
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
        CacheEntry e = new CacheEntry(key.clone(), cached);
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
        CacheEntry e = lookUp(key);
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
    private CacheEntry lookUp(byte[] key) {
        CacheEntry e = last;
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
        CacheEntry e = lookUp(key);
        if (e == null) {
            byte[] copy = owned(value);
            e = new CacheEntry(key.clone(), copy);
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
        dirty.mark(e, scannable);
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
        dirty.writeThroughUnder(prefix, first);
        return inner.scan(prefix, first);
    }

    @Override
    public SnapshotPart snapshot(long checkpointId) {
        return dirty.snapshot(checkpointId);
    }

    @Override
    public void prepareSnapshot() {
        dirty.flush();
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
        last = null;
        bytes = 0;
        inner.close();
    }

    /** Dirty entries listed as point keys; for tests. */
    int listedDirtyPoints() {
        return dirty.listedPoints();
    }

    /** Cached entries; for tests. */
    int cachedEntries() {
        return entries.size();
    }
}
