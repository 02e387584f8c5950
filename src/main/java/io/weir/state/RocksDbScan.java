package io.weir.state;

import java.util.AbstractMap;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * A prefix scan of a {@link RocksDbStateStore}: reads {@link #SCAN_BATCH} entries at a time, each
 * batch with a fresh iterator closed at once, so an iterator abandoned halfway holds nothing native.
 * The database belongs to the store, which closes it; each batch checks first that it is still open.
 */
final class RocksDbScan implements Iterator<Map.Entry<byte[], byte[]>> {
    private static final int SCAN_BATCH = 256;

    private final RocksDbStateStore store;
    private final RocksDB db;
    private final byte[] prefix;
    private final byte[] start;
    private final ArrayDeque<Map.Entry<byte[], byte[]>> batch = new ArrayDeque<>();
    private byte[] lastKey;
    private boolean exhausted;

    RocksDbScan(RocksDbStateStore store, RocksDB db, byte[] prefix, byte[] start) {
        this.store = store;
        this.db = db;
        this.prefix = prefix;
        this.start = start;
    }

    @Override
    public boolean hasNext() {
        if (batch.isEmpty() && !exhausted) {
            fill();
        }
        return !batch.isEmpty();
    }

    @Override
    public Map.Entry<byte[], byte[]> next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return batch.pollFirst();
    }

    private void fill() {
        store.ensureOpen();
        // The upper bound stops the iterator at the prefix's end: without it, a seek into a
        // prefix with no live key steps over every deleted key after it (expired join records,
        // fired timers) until it finds a live one, however far away.
        byte[] end = Bytes.prefixEnd(prefix);
        try (Slice bound = end == null ? null : new Slice(end);
                ReadOptions options =
                        bound == null ? new ReadOptions() : new ReadOptions().setIterateUpperBound(bound);
                RocksIterator it = db.newIterator(options)) {
            if (lastKey == null) {
                it.seek(start);
            } else {
                it.seek(lastKey);
                if (it.isValid() && Arrays.equals(it.key(), lastKey)) {
                    it.next();
                }
            }
            while (it.isValid() && batch.size() < SCAN_BATCH && startsWithPrefix(it.key())) {
                byte[] key = it.key();
                batch.addLast(new AbstractMap.SimpleImmutableEntry<>(key, it.value()));
                lastKey = key;
                it.next();
            }
            exhausted = batch.size() < SCAN_BATCH;
            it.status();
        } catch (RocksDBException e) {
            throw store.failed("scan", e);
        }
    }

    private boolean startsWithPrefix(byte[] key) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }
}
