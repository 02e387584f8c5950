package io.weir.api;

import java.util.Map;

/** A map per key (see {@link ProcessorContext#mapState}); checkpointed with the task. */
public interface MapState<K, V> {
    /** The value under {@code key} in the current key's map, or null. */
    V get(K key);

    /** Puts {@code value} (not null) under {@code key} in the current key's map. */
    void put(K key, V value);

    /** Removes {@code key} from the current key's map. */
    void remove(K key);

    /** Whether the current key's map has {@code key}. */
    boolean contains(K key);

    /** A copy of the current key's map, in the order of the keys' JSON text. */
    Map<K, V> entries();

    /** Empties the current key's map. */
    void clear();
}
