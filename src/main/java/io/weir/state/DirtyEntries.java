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
 * The dirty entries of a {@link WriteBackCache}, kept so that each reaches the inner store in time:
 * those a scan may cover in key order, those of point keys in a list; written through when a scan
 * covers them, when the cache evicts them and at a flush, or carried along by a snapshot.
 *
 * <p>Threading: its cache's, the task thread only.
 */
final class DirtyEntries {
    /** Unsigned lexicographic, as RocksDB's default comparator orders keys. */
    private static final Comparator<CacheEntry> BY_KEY = (a, b) -> Arrays.compareUnsigned(a.key, b.key);

    private final RocksDbStateStore inner;
    private final long maxCarriedBytes;

    /**
     * The dirty keys a scan may cover, sorted, so that a scan writes through the dirty entries under
     * its prefix only. A key enters once per checkpoint however often it is written: its entry's
     * flag says it is here already, which keeps the sorted set off the path of a hot key's repeated
     * writes.
     */
    private final NavigableSet<CacheEntry> dirty = new TreeSet<>(BY_KEY);

    /**
     * The dirty entries of point keys ({@link StateStore#putPoint}: no scan covers them), in no
     * order: with a large key space nearly every write dirties a new key, and a sorted set cost more
     * than the rest of the record. A dirty entry is here or in {@link #dirty}, never in both; one
     * evicted leaves (swapped with the last), so the list never holds more than the cache.
     */
    private final List<CacheEntry> dirtyPoints = new ArrayList<>();

    /** @param maxCarriedBytes dirty entries a snapshot carries along at most, serialized; 0: none */
    DirtyEntries(RocksDbStateStore inner, long maxCarriedBytes) {
        this.inner = inner;
        this.maxCarriedBytes = maxCarriedBytes;
    }

    /**
     * Marks {@code e} dirty after a write, in the sorted set if {@code scannable} (a scan may cover
     * its key), else in the list of point keys.
     */
    void mark(CacheEntry e, boolean scannable) {
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
    }

    /** Takes the dirty entry {@code e}, which the cache evicts, out and writes it through. */
    void writeThroughEvicted(CacheEntry e) {
        if (e.sorted) {
            dirty.remove(e);
            e.sorted = false;
        } else {
            unlist(e);
        }
        writeThrough(e);
        e.dirty = false;
    }

    /**
     * Writes through the dirty entries a scan of {@code prefix} from {@code first} (not before the
     * prefix) covers.
     */
    void writeThroughUnder(byte[] prefix, byte[] first) {
        for (Iterator<CacheEntry> it =
                        dirty.tailSet(new CacheEntry(first, null), true).iterator();
                it.hasNext(); ) {
            CacheEntry e = it.next();
            if (!startsWith(e.key, prefix)) {
                break;
            }
            writeThrough(e);
            e.dirty = false;
            e.sorted = false;
            it.remove();
        }
    }

    SnapshotPart snapshot(long checkpointId) {
        // The dirty entries stay dirty (the next preparation writes them through) and go into the
        // checkpoint as they are: a pair of references each, serialized by the uploader, is cheaper
        // than writing them into RocksDB now. The arrays are safe to share: an entry marked shared
        // gets a new array at its next write instead of a write into this one, and keys never change.
        List<CacheEntry> dirtyNow = dirtyEntries();
        if (WriteBatches.size(dirtyNow) > maxCarriedBytes) {
            flush();
            return inner.snapshot(checkpointId);
        }
        List<Map.Entry<byte[], byte[]>> pending = new ArrayList<>(dirtyNow.size());
        for (CacheEntry e : dirtyNow) {
            e.shared = true;
            pending.add(new AbstractMap.SimpleImmutableEntry<>(e.key, e.getValue()));
        }
        return inner.snapshot(checkpointId, pending);
    }

    void flush() {
        if (dirty.isEmpty() && dirtyPoints.isEmpty()) {
            return;
        }
        List<CacheEntry> batch = dirtyEntries();
        // One walk clears the flags and sums the batch's size, the other writes it: with many dirty
        // keys each walk is a cache miss per entry (a third one measured the batch). The flags are
        // clear before the write: a write that fails fails the task, which restores from a checkpoint.
        long size = WriteBatches.HEADER;
        for (CacheEntry e : batch) {
            e.dirty = false;
            e.sorted = false;
            e.listed = -1;
            size += WriteBatches.sizeOf(e.key, e.getValue());
        }
        dirty.clear();
        dirtyPoints.clear();
        inner.writeAll(batch, size);
    }

    /** Forgets every dirty entry without writing it (the cache is closing). */
    void clear() {
        dirty.clear();
        dirtyPoints.clear();
    }

    /** Dirty entries listed as point keys; for tests. */
    int listedPoints() {
        return dirtyPoints.size();
    }

    /** The dirty entries: those a scan may cover in key order, then the point keys. */
    private List<CacheEntry> dirtyEntries() {
        List<CacheEntry> all = new ArrayList<>(dirty.size() + dirtyPoints.size());
        all.addAll(dirty);
        all.addAll(dirtyPoints);
        return all;
    }

    /** Takes {@code e} out of {@link #dirtyPoints}, the last entry taking its place. */
    private void unlist(CacheEntry e) {
        CacheEntry moved = dirtyPoints.remove(dirtyPoints.size() - 1);
        if (moved != e) {
            dirtyPoints.set(e.listed, moved);
            moved.listed = e.listed;
        }
        e.listed = -1;
    }

    private void writeThrough(CacheEntry e) {
        if (e.value == CacheEntry.DELETED) {
            inner.delete(e.key);
        } else {
            inner.put(e.key, e.value);
        }
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }
}
