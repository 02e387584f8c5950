package io.weir.state;

import java.util.List;
import java.util.Map;

/** A map per key; the key is the current record's key. Iteration is in serialised-key order. */
public interface MapState<K, V> {
    V get(K key);

    void put(K key, V value);

    void remove(K key);

    boolean contains(K key);

    /** A copy of the current key's entries. */
    List<Map.Entry<K, V>> entries();

    void clear();
}
