package io.weir.state;

import java.util.Arrays;

/**
 * The entries by key: open addressing with linear probing over an array of entries, each
 * holding its key's hash. A lookup reads a slot and the entry it points to (then its key and
 * value arrays, independently), where a {@code LinkedHashMap} walks from its node to a key wrapper
 * to the key and back to the entry: with many keys each step is a cache miss, and reading state
 * was half of a record's cost at 100,000 keys. Removal shifts the entries after the hole back
 * (no tombstones). A clock hand over the slots picks what to evict.
 *
 * <p>Threading: its cache's, the task thread only.
 */
final class CacheTable {
    private static final int MIN_CAPACITY = 1024;

    private CacheEntry[] slots = new CacheEntry[MIN_CAPACITY];
    private int size;
    private int hand;

    /** The key's content hash, spread over the bits a table's mask keeps. */
    static int hash(byte[] key) {
        int h = Arrays.hashCode(key) * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    int size() {
        return size;
    }

    /** The entry of {@code key}, or null. */
    CacheEntry find(byte[] key) {
        int hash = hash(key);
        CacheEntry[] t = slots;
        int mask = t.length - 1;
        for (int i = hash & mask; ; i = (i + 1) & mask) {
            CacheEntry e = t[i];
            if (e == null) {
                return null;
            }
            if (e.hash == hash && Arrays.equals(e.key, key)) {
                return e;
            }
        }
    }

    /** Adds {@code e}, whose key is not in the table. */
    void add(CacheEntry e) {
        if ((size + 1) * 3L > slots.length * 2L) { // at most two thirds full
            resize(slots.length * 2);
        }
        insert(slots, e);
        size++;
    }

    void remove(CacheEntry e) {
        CacheEntry[] t = slots;
        int mask = t.length - 1;
        int i = e.hash & mask;
        while (t[i] != e) {
            if (t[i] == null) {
                throw new IllegalStateException("a cached entry is missing from its table");
            }
            i = (i + 1) & mask;
        }
        // Backward shift: an entry after the hole moves into it unless its home slot lies
        // cyclically after the hole (then it is reachable where it is).
        int hole = i;
        for (int j = (hole + 1) & mask; t[j] != null; j = (j + 1) & mask) {
            int home = t[j].hash & mask;
            boolean reachable = hole <= j ? hole < home && home <= j : hole < home || home <= j;
            if (!reachable) {
                t[hole] = t[j];
                hole = j;
            }
        }
        t[hole] = null;
        size--;
        if (t.length > MIN_CAPACITY && size * 8L < t.length) {
            resize(t.length / 2);
        }
    }

    /**
     * The next entry the clock hand finds not referenced since it last passed; those it passes
     * lose their mark. The table must not be empty.
     */
    CacheEntry nextVictim() {
        CacheEntry[] t = slots;
        int mask = t.length - 1;
        while (true) {
            hand = (hand + 1) & mask;
            CacheEntry e = t[hand];
            if (e != null) {
                if (!e.referenced) {
                    return e;
                }
                e.referenced = false;
            }
        }
    }

    void clear() {
        slots = new CacheEntry[MIN_CAPACITY];
        size = 0;
        hand = 0;
    }

    private void resize(int capacity) {
        CacheEntry[] bigger = new CacheEntry[capacity];
        for (CacheEntry e : slots) {
            if (e != null) {
                insert(bigger, e);
            }
        }
        slots = bigger;
        hand &= capacity - 1;
    }

    private static void insert(CacheEntry[] t, CacheEntry e) {
        int mask = t.length - 1;
        int i = e.hash & mask;
        while (t[i] != null) {
            i = (i + 1) & mask;
        }
        t[i] = e;
    }
}
