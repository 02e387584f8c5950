package io.weir.state;

/** One value per key; the key is the current record's key. */
public interface ValueState<T> {
    /** The value of the current key, or null. */
    T value();

    void update(T value);

    void clear();
}
